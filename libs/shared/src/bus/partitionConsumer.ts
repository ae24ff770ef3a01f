import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../logger';

/** How long one pull waits for messages of an idle partition, in ms (the least JetStream allows is 1 000). */
const FETCH_EXPIRES_MS = 2_000;

/** What a partition consumer does with the messages it pulls. */
export interface PartitionHandling {
  /** Messages handed over at once, at most. */
  batchSize: number;
  /** Messages pulled at once, at most (at most the consumer's `max_ack_pending`). */
  fetchSize: number;
  /** The consumer's ack wait, in ms: messages in hand are marked in progress well within it. */
  ackWaitMs: number;
  /** Attempts (JetStream deliveries plus retries here) before a message is parked. */
  maxDeliver: number;
  /** False for a message this consumer does not handle (filtered here on servers without several filters): acked at once. */
  wanted(m: JsMsg): boolean;
  /**
   * Handles messages in stream order; resolves when they are done. Throws for a batch that failed (the batch is
   * then tried again one message at a time). A message it cannot use at all it parks itself.
   */
  handle(batch: JsMsg[]): Promise<void>;
  /** Copies a message that kept failing to the dead letters (resolves once stored); it is acknowledged after. */
  park(m: JsMsg, err: unknown): Promise<void>;
}

/**
 * Handles one partition of a durable consumer while this replica holds its lease: pulls (one pull outstanding at a
 * time), hands messages to the handler in stream order, in batches of what has arrived, and acknowledges them once
 * handled. A failing message is retried here, in order, with a growing delay, while the messages after it wait (all
 * kept in progress, so JetStream redelivers none of them); after `maxDeliver` attempts it is parked and the partition
 * goes on. On `stop` the messages not yet handled are handed back (nak, in order) for the next holder.
 */
export class PartitionConsumer {
  private stopping = false;
  private readonly abort = new AbortController();
  private readonly inHand = new Set<JsMsg>();
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly consumer: Consumer,
    private readonly how: PartitionHandling,
    private readonly logger: Logger,
    private readonly where: Record<string, unknown>,
  ) {}

  /**
   * Starts pulling. `clean` is false when the previous holder may have crashed with messages in hand: those are then
   * let come back first (after the ack wait), before any newer message of the partition.
   */
  start(clean: boolean): void {
    this.done = this.run(clean);
  }

  /** Stops pulling, waits for the messages in hand to be handled or handed back. Idempotent. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    await this.done;
  }

  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.abort.signal }).catch(() => undefined);
  }

  private async run(clean: boolean): Promise<void> {
    const keepalive = setInterval(() => {
      for (const m of this.inHand) m.working();
    }, this.how.ackWaitMs / 3);
    let chain = Promise.resolve();
    try {
      if (!clean && (await this.consumer.info()).num_ack_pending > 0) await this.pause(this.how.ackWaitMs + 1_000);
      while (!this.stopping) {
        let buffer: JsMsg[] = [];
        const flush = () => {
          const batch = buffer;
          buffer = [];
          if (batch.length) chain = chain.then(() => this.process(batch));
        };
        try {
          const messages = await this.consumer.fetch({ max_messages: this.how.fetchSize, expires: FETCH_EXPIRES_MS });
          for await (const m of messages) {
            if (!this.how.wanted(m)) {
              m.ack();
              continue;
            }
            this.inHand.add(m);
            buffer.push(m);
            if (buffer.length >= this.how.batchSize) flush();
            else if (buffer.length === 1) setImmediate(flush);
          }
        } catch (err) {
          if (!this.stopping) this.logger.warn({ err, ...this.where }, 'pull failed; trying again');
          await this.pause(1_000);
        }
        flush();
      }
    } finally {
      await chain;
      clearInterval(keepalive);
    }
  }

  private async process(batch: JsMsg[]): Promise<void> {
    if (!this.stopping) {
      try {
        await this.how.handle(batch);
        return this.settle(batch, (m) => m.ack());
      } catch (err) {
        if (batch.length > 1) this.logger.warn({ err, ...this.where }, 'batch failed; handling it message by message');
        for (const m of batch) if (!this.stopping) await this.oneByOne(m, batch.length > 1 ? 0 : 1, err);
      }
    }
    this.settle(batch, (m) => m.nak());
  }

  /** Handles `m` alone until it succeeds or is parked; `failed` attempts were already made here. */
  private async oneByOne(m: JsMsg, failed: number, firstErr: unknown): Promise<void> {
    let err = firstErr;
    for (let attempt = m.info.deliveryCount + failed; ; attempt++) {
      if (attempt > m.info.deliveryCount) {
        if (attempt > this.how.maxDeliver) {
          await this.how.park(m, err);
          return this.settle([m], (x) => x.term());
        }
        this.logger.warn({ err, subject: m.subject, attempt: attempt - 1, ...this.where }, 'handler failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** (attempt - 1)));
        if (this.stopping) return;
      }
      try {
        await this.how.handle([m]);
        return this.settle([m], (x) => x.ack());
      } catch (e) {
        err = e;
      }
    }
  }

  /** Settles (`how`: ack, nak or term) the messages of `batch` still in hand, in order, and lets go of them. */
  private settle(batch: JsMsg[], how: (m: JsMsg) => void): void {
    for (const m of batch) {
      if (!this.inHand.delete(m)) continue;
      how(m);
    }
  }
}
