import type { EventBus } from '../bus/eventBus';
import type { Logger } from '../logger';

interface Pending {
  subject: string;
  payload: unknown;
  msgId: string;
}

/** Retry delays after a failed publish: doubling from 250 ms up to 5 s. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * Publishes messages to JetStream one at a time, in the order they were handed over, retrying a failed publish
 * (NATS unreachable, no stream ack) until it succeeds, so a NATS outage delays dispatches but never reorders or
 * loses them while this process runs. Payloads larger than the server's `max_payload` can never be stored: they
 * are logged as errors and skipped.
 */
export class OrderedPublisher {
  private readonly queue: Pending[] = [];
  private running: Promise<void> | null = null;
  private stopped = false;
  private published = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
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
  push(subject: string, payload: unknown, msgId: string): void {
    if (this.stopped) return;
    this.queue.push({ subject, payload, msgId });
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  /** Waits until the backlog is published (or `timeoutMs` passes), then stops accepting messages. */
  async stop(timeoutMs = 5_000): Promise<void> {
    const drained = this.running ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    this.stopped = true;
    if (this.queue.length) this.logger.warn({ lost: this.queue.length }, 'bridge stopped with dispatches unpublished');
  }

  private async drain(): Promise<void> {
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
      await this.publishWithRetry(next);
      this.queue.shift();
    }
  }

  private async publishWithRetry(item: Pending): Promise<void> {
    let delay = FIRST_RETRY_MS;
    for (;;) {
      try {
        await this.bus.publish(item.subject, item.payload, item.msgId);
        this.published++;
        return;
      } catch (err) {
        if (this.stopped) return;
        this.logger.warn({ err, subject: item.subject, retryInMs: delay }, 'publishing a dispatch failed; retrying');
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(MAX_RETRY_MS, delay * 2);
      }
    }
  }
}
