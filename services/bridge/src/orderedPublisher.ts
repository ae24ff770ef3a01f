import type { EventBus, Logger } from '@guildhall/shared';

interface Pending<T> {
  subject: string;
  payload: unknown;
  msgId: string;
  tag: T;
}

/** What the owner of an `OrderedPublisher` hears about. */
export interface PublisherHooks<T> {
  /** JetStream stored (or already had) the message pushed with `tag`. */
  onPublished?(tag: T): void;
  /** A publish attempt failed (it is retried). */
  onFailure?(err: unknown): void;
}

/** Retry delays after a failed publish: doubling from 250 ms up to 5 s. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * Publishes messages to JetStream one at a time, in the order they were handed over, retrying a failed publish
 * (NATS unreachable, no stream ack) until it succeeds, so a NATS outage delays dispatches but never reorders or
 * loses them while this process runs. Payloads larger than the server's `max_payload` can never be stored: they
 * are logged as errors and skipped. Each message carries a `tag` handed back to `hooks.onPublished` once stored.
 */
export class OrderedPublisher<T = undefined> {
  private readonly queue: Pending<T>[] = [];
  private running: Promise<void> | null = null;
  private draining = false;
  private stopped = false;
  private published = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
    private readonly hooks: PublisherHooks<T> = {},
  ) {}

  /** Messages stored by JetStream so far (duplicates it dropped included). */
  get publishedCount(): number {
    return this.published;
  }

  /** Messages waiting to be published. */
  get backlog(): number {
    return this.queue.length;
  }

  /** Queues `payload` (JSON-encoded) for `subject` with the de-duplication id `msgId`. */
  push(subject: string, payload: unknown, msgId: string, tag: T): void {
    if (this.stopped) return;
    this.queue.push({ subject, payload, msgId, tag });
    if (this.draining) return;
    this.draining = true;
    this.running = this.drain();
  }

  /** Waits until the backlog is published (or `timeoutMs` passes), then stops accepting messages. */
  async stop(timeoutMs = 5_000): Promise<void> {
    const drained = this.running ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    this.stopped = true;
    if (this.queue.length)
      this.logger.warn(
        { unpublished: this.queue.length },
        'bridge stopped with dispatches unpublished (the next start RESUMEs and the platform replays them)',
      );
  }

  /**
   * Publishes the queue in order until it is empty. `draining` is cleared in the same step as the last emptiness check
   * (no await between them), so a message queued after it starts a new drain instead of waiting for the next push.
   */
  private async drain(): Promise<void> {
    try {
      const maxPayload = this.bus.nc.info?.max_payload ?? Number.POSITIVE_INFINITY;
      while (this.queue.length && !this.stopped) {
        const next = this.queue[0];
        const size = Buffer.byteLength(JSON.stringify(next.payload));
        if (size > maxPayload) {
          this.logger.error(
            { subject: next.subject, msgId: next.msgId, size, maxPayload },
            'dispatch too large for NATS',
          );
          this.queue.shift();
          continue;
        }
        const stored = await this.publishWithRetry(next);
        this.queue.shift();
        if (stored) this.hooks.onPublished?.(next.tag);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Publishes until JetStream stores it (true), or until stopped (false). */
  private async publishWithRetry(item: Pending<T>): Promise<boolean> {
    let delay = FIRST_RETRY_MS;
    for (;;) {
      try {
        await this.bus.publish(item.subject, item.payload, item.msgId);
        this.published++;
        return true;
      } catch (err) {
        this.hooks.onFailure?.(err);
        if (this.stopped) return false;
        this.logger.warn({ err, subject: item.subject, retryInMs: delay }, 'publishing a dispatch failed; retrying');
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(MAX_RETRY_MS, delay * 2);
      }
    }
  }
}
