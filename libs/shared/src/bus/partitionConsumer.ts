import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../logger';
import { isInfrastructureError } from '../unavailable';

/** How long one pull waits for messages of an idle partition, in ms (the least JetStream allows is 1 000). */
const FETCH_EXPIRES_MS = 2_000;

/** What a partition consumer does with the messages it pulls. */
export interface PartitionHandling {
  /** Messages handed over at once, at most. */
  batchSize: number;
  /** Messages pulled at once, at most (at most the consumer's `max_ack_pending`). */
  fetchSize: number;
  /** The consumer's ack wait, in ms: messages in hand are marked in progress five times within it. */
  ackWaitMs: number;
  /**
   * Attempts (JetStream deliveries plus retries here) before a message is parked. Attempts that failed for the
   * infrastructure (`isInfrastructureError`: MongoDB or a peer down, a timeout) do not count: those are retried until
   * it is back.
   */
  maxDeliver: number;
  /** False for a message this consumer does not handle (filtered here on servers without several filters): acked at once. */
  wanted(m: JsMsg): boolean;
  /**
   * Batches handled at once, at most (1: one after the other). With 2, the next batch's handler starts while the
   * previous one is still being handled, and must await its `inTurn` before reading or writing anything that the
   * previous batch's handling may change.
   */
  pipeline: number;
  /**
   * Handles messages in stream order; resolves when they are done. Throws for a batch that failed (the batch is
   * then tried again one message at a time). A message it cannot use at all it parks itself. `inTurn` resolves once
   * every earlier batch is settled (at once unless `pipeline` > 1) and rejects when the partition stopped first.
   */
  handle(batch: JsMsg[], inTurn: () => Promise<void>): Promise<void>;
  /** Copies a message that kept failing to the dead letters (resolves once stored); it is acknowledged after. */
  park(m: JsMsg, err: unknown): Promise<void>;
}

/**
 * Handles one partition of a durable consumer while this replica holds its lease: pulls (one pull outstanding at a
 * time), hands messages to the handler in stream order, in batches of what has arrived (up to `batchSize`: what arrives
 * while the handler is busy waits for its next batch), and acknowledges them once handled. With `pipeline` 2 the next
 * batch's handling starts while the previous one's is under way (its handler waits for `inTurn` before touching what
 * the previous batch may change), and batches are still settled in stream order. A failing message is retried
 * here, in order, with a growing delay, while the messages after it wait (all kept in progress, so JetStream redelivers
 * none of them); after `maxDeliver` attempts that failed for the message's own reason (the handler's or the schema's;
 * not the infrastructure's: MongoDB or a peer down, a timeout, retried without limit at most every 30 s, so an outage
 * parks nothing and the partition resumes in order) it is parked and the partition goes on. On `stop` the messages not yet
 * handled are handed back (nak, in order) for the next holder. A message delivered again while in hand (its ack wait
 * ran out, e.g. the event loop stalled) is dropped, not handled twice; so is one at or below the highest sequence this
 * consumer acknowledged (messages are settled in stream order, so it was handled here and its acknowledgement was
 * lost, e.g. with the server leading the consumer in a cluster): it is acknowledged again.
 *
 * Takeover: messages an earlier holder left unacknowledged (it crashed, stalled, or its naks are still on their way)
 * come back when their ack wait runs out, and NATS 2.9 redelivers them in the order their ack waits ran out, not in
 * stream order. So while the consumer has unacknowledged messages this holder does not have, everything pulled is held
 * (kept in progress); once every unacknowledged message is in hand they are handed over in stream order.
 *
 * Fencing: `holds` says whether this replica surely still holds the partition's lease. Once it is false the consumer
 * touches nothing any more (no pull, no handling, no ack, nak or in-progress mark); what it had in hand comes back to
 * the next holder when its ack wait runs out.
 */
export class PartitionConsumer {
  private stopping = false;
  private readonly abort = new AbortController();
  /** Messages taken in and not yet settled, by stream sequence. */
  private readonly inHand = new Map<number, JsMsg>();
  /** The highest stream sequence this consumer acknowledged (handled, parked or not wanted); 0 before any. */
  private settledUpTo = 0;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly consumer: Consumer,
    private readonly how: PartitionHandling,
    private readonly holds: () => boolean,
    private readonly logger: Logger,
    private readonly where: Record<string, unknown>,
  ) {}

  /** Starts pulling. */
  start(): void {
    this.done = this.run();
  }

  /** Stops pulling, waits for the messages in hand to be handled or handed back. Idempotent. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    await this.done;
  }

  /** True while the consumer may go on: not stopping, and the lease surely held (else it stops here, fenced). */
  private active(): boolean {
    if (this.stopping) return false;
    if (this.holds()) return true;
    this.logger.warn({ ...this.where, inHand: this.inHand.size }, 'partition lease may have lapsed; partition fenced');
    this.stopping = true;
    this.abort.abort();
    return false;
  }

  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.abort.signal }).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const keepalive = setInterval(() => {
      if (this.holds()) for (const m of this.inHand.values()) m.working();
    }, this.how.ackWaitMs / 5);
    // handed over and not yet taken by the handler, in stream order; the handler takes up to a batch whenever it has
    // room (`pipeline` batches under way at most), so what arrives while it is busy goes in its next batch instead of
    // in batches of its own
    const queue: JsMsg[] = [];
    let underWay = 0;
    // the latest batch's settling (each batch settles after the one before it)
    let last: Promise<boolean> = Promise.resolve(true);
    const take = () => {
      while (queue.length && underWay < this.how.pipeline) {
        underWay++;
        last = this.process(queue.splice(0, this.how.batchSize), last);
        // the next batch is taken on the next turn of the event loop: the batch that waited for this one's settling
        // goes on first (its writes are sent) before another batch's preparation (decoding) holds the thread
        const done = () => {
          underWay--;
          setImmediate(take);
        };
        last.then(done, done);
      }
    };
    let taking = false;
    const handOver = (messages: JsMsg[]) => {
      queue.push(...messages);
      if (taking || !queue.length) return;
      taking = true;
      // what arrives in the same turn of the event loop goes in the same batch
      setImmediate(() => {
        taking = false;
        take();
      });
    };
    let takingOver = true;
    try {
      while (this.active()) {
        try {
          if (takingOver && (await this.consumer.info()).num_ack_pending <= this.inHand.size) {
            takingOver = false;
            handOver([...this.inHand.values()].sort((a, b) => a.seq - b.seq));
          }
          const messages = await this.consumer.fetch({ max_messages: this.how.fetchSize, expires: FETCH_EXPIRES_MS });
          for await (const m of messages) {
            // fenced: touches nothing more (a clean stop reads the pull to its end and hands everything back)
            if (!this.holds()) break;
            // delivered again while still in hand: the copy in hand settles it
            if (this.inHand.has(m.seq)) continue;
            // delivered again after this consumer handled and acknowledged it (the acknowledgement was lost: the
            // server leading the consumer died before its peers had it): acknowledged again, not handled twice
            if (m.seq <= this.settledUpTo) {
              m.ack();
              continue;
            }
            if (!this.how.wanted(m)) {
              // while taking over, the count of unacknowledged messages must not include it any more
              if (takingOver) await m.ackAck();
              else m.ack();
              this.settledUpTo = Math.max(this.settledUpTo, m.seq);
              continue;
            }
            this.inHand.set(m.seq, m);
            if (!takingOver) handOver([m]);
          }
        } catch (err) {
          if (!this.stopping) this.logger.warn({ err, ...this.where }, 'pull failed; trying again');
          await this.pause(1_000);
        }
      }
    } finally {
      // the batches under way and what is queued settle (what was not handled is handed back: the partition stopped)
      take();
      while (underWay || queue.length) {
        await last;
        take();
      }
      // held while taking over and never handed over: handed back
      this.settle(
        [...this.inHand.values()].sort((a, b) => a.seq - b.seq),
        (m) => m.nak(),
      );
      clearInterval(keepalive);
    }
  }

  /**
   * Handles `batch` and settles it once `previous` (the batch before it) is settled: acknowledged when handled, else
   * tried again message by message. Resolves true once every message of it is settled, false when the partition
   * stopped first (what is left in hand is handed back, and the batches after it are handed back too).
   */
  private async process(batch: JsMsg[], previous: Promise<boolean>): Promise<boolean> {
    let failure: { err: unknown } | null = null;
    if (this.active()) {
      try {
        await this.how.handle(batch, async () => {
          if (!(await previous) || !this.active())
            throw new Error('an earlier batch was handed back: partition stopped');
        });
      } catch (err) {
        failure = { err };
      }
    }
    if ((await previous) && this.active()) {
      if (!failure) {
        this.settle(batch, (m) => m.ack(), true);
        return true;
      }
      const { err } = failure;
      if (batch.length > 1) this.logger.warn({ err, ...this.where }, 'batch failed; handling it message by message');
      for (const m of batch) if (this.active()) await this.oneByOne(m, batch.length > 1 ? 0 : 1, err);
    }
    const settled = batch.every((m) => !this.inHand.has(m.seq));
    this.settle(batch, (m) => m.nak());
    return settled;
  }

  /**
   * Handles `m` alone until it succeeds or is parked (a failed parking is tried again after the same delay);
   * `failed` attempts were already made here. Attempts that failed for the infrastructure are not counted towards
   * `maxDeliver`.
   */
  private async oneByOne(m: JsMsg, failed: number, firstErr: unknown): Promise<void> {
    let err = firstErr;
    let outages = 0;
    for (let attempt = m.info.deliveryCount + failed; ; attempt++) {
      if (attempt > m.info.deliveryCount) {
        if (isInfrastructureError(err)) outages++;
        const parking = attempt - outages > this.how.maxDeliver;
        if (parking) {
          if (!this.active()) return;
          if (await this.parked(m, err)) return this.settle([m], (x) => x.term(), true);
        } else {
          this.logger.warn(
            { err, subject: m.subject, attempt: attempt - 1, ...this.where },
            'handler failed; retrying',
          );
        }
        await this.pause(Math.min(30_000, 200 * 2 ** (attempt - 1)));
        if (!this.active()) return;
        if (parking) continue;
      }
      try {
        await this.how.handle([m], async () => {});
        return this.settle([m], (x) => x.ack(), true);
      } catch (e) {
        err = e;
      }
    }
  }

  /** Parks `m` (true), or logs why it could not (e.g. NATS unreachable: false, the message stays in hand). */
  private async parked(m: JsMsg, err: unknown): Promise<boolean> {
    try {
      await this.how.park(m, err);
      return true;
    } catch (parkErr) {
      this.logger.error({ err: parkErr, subject: m.subject, ...this.where }, 'parking a message failed; retrying');
      return false;
    }
  }

  /**
   * Settles (`how`: ack, nak or term) the messages of `batch` still in hand, in order, and lets go of them. Without the
   * lease they are only let go of: the next holder gets them again once their ack wait runs out. `final` (ack or term
   * after handling or parking): they count as done (`settledUpTo`), so a copy delivered again is not handled again.
   */
  private settle(batch: JsMsg[], how: (m: JsMsg) => void, final = false): void {
    const holds = this.holds();
    for (const m of batch) {
      if (!this.inHand.delete(m.seq) || !holds) continue;
      how(m);
      if (final) this.settledUpTo = Math.max(this.settledUpTo, m.seq);
    }
  }
}
