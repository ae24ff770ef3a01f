import type { EventBus, Logger } from '@guildhall/shared';
import { type KV, Kvm } from '@nats-io/kv';
import type { IncrementResponse, Options, Store } from 'express-rate-limit';

/** The NATS key-value bucket (namespace prefix added) holding the hits of every window, shared by the replicas. */
export const RATE_LIMIT_BUCKET = 'gateway_rate_limits';
/** Compare-and-set attempts of one write before it is left for the next hit. */
const MAX_ATTEMPTS = 20;
/** After NATS refused to open the bucket, this long (ms) without trying again (hits are counted locally meanwhile). */
const REOPEN_MS = 2_000;

/** One client's hits in one window, as this replica knows them. */
interface Count {
  window: number;
  /** The total stored in the bucket, as last read, written or watched. */
  shared: number;
  /** Hits of this replica not yet written. */
  pending: number;
  /** Hits of this replica being written now. */
  writing: number;
  /**
   * Requests waiting for their hit to be stored (the next write takes them all): `offset` is the hit's place among the
   * pending hits, so each is told its own place in the stored count.
   */
  waiting: Array<{ offset: number; resolve: (total: number) => void }>;
  /** True while a write loop runs for this count (one at a time; it takes the hits that arrive meanwhile). */
  writer: boolean;
  /** The counter's value and revision in the bucket as last written or watched (null: not known, read it first). */
  stored: { value: number; revision: number } | null;
}

/**
 * An `express-rate-limit` store shared by every gateway replica: fixed windows of `windowMs` aligned to the clock,
 * one counter per client and window in the NATS key-value bucket `RATE_LIMIT_BUCKET` (key
 * `<name>.<window number>.<client key in hex>`, entries expire after two windows), so the limit holds across
 * replicas and a restarted replica continues the count (its first write returns the stored total).
 *
 * Each allowed request waits until its hit is added to the counter (compare-and-set), and the total it gets is the
 * stored one, so the request that passes the limit is the same whichever replicas served the others. Writes are
 * batched per client: while one is under way, the hits that arrive wait for the next, which takes them all in one
 * write (a busy client costs one write at a time per replica, not one per request). A write is one compare-and-set
 * against the revision this replica last wrote or watched; only when another replica wrote in between (the
 * compare-and-set is refused) is the counter read again first.
 * Replicas watch the bucket for each other's writes, so a client already past the limit is refused from memory
 * (its hit is written in the background). While NATS is unreachable a replica counts its own hits and writes them
 * once it is back.
 */
export class SharedWindowStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private windowMs = 60_000;
  private limit = Number.POSITIVE_INFINITY;
  private readonly counts = new Map<string, Count>();
  private kv: Promise<KV | null> | null = null;
  private openFailedAt = 0;

  /** `name`: the limiter (`ip`, `user`), the first token of its keys. */
  constructor(
    private readonly bus: EventBus,
    private readonly name: string,
    private readonly logger: Logger,
  ) {
    this.prefix = name;
  }

  /** Called by express-rate-limit with the limiter's options: the window and (a fixed number) limit. */
  init(options: Options): void {
    this.windowMs = options.windowMs;
    if (typeof options.limit === 'number') this.limit = options.limit;
    void this.open();
  }

  /** Counts a hit of `key` in the current window; resolves its total across replicas and when the window resets. */
  async increment(key: string): Promise<IncrementResponse> {
    const count = this.count(key);
    count.pending += 1;
    const resetTime = this.resetTime(count.window);
    // `shared` + `pending` is certainly counted already (`writing` may be in `shared` too): past the limit, refuse now.
    if (count.shared + count.pending > this.limit || !this.bus.isConnected()) {
      void this.write(count, key);
      return { totalHits: this.total(count), resetTime };
    }
    return { totalHits: await this.write(count, key, true), resetTime };
  }

  /** Takes back a hit of `key` (express-rate-limit's skip of failed or successful requests). */
  async decrement(key: string): Promise<void> {
    const count = this.count(key);
    count.pending -= 1;
    void this.write(count, key);
  }

  /** Forgets `key`'s hits of the current window, here and in the bucket. */
  async resetKey(key: string): Promise<void> {
    const id = this.entryKey(this.currentWindow(), key);
    this.counts.delete(id);
    const kv = await this.open();
    await kv?.delete(id).catch(() => undefined);
  }

  /** The current window's hits of `key` as this replica knows them (no hit counted), or undefined before any. */
  async get(key: string): Promise<{ totalHits: number; resetTime: Date } | undefined> {
    const count = this.counts.get(this.entryKey(this.currentWindow(), key));
    if (!count) return undefined;
    return { totalHits: this.total(count), resetTime: this.resetTime(count.window) };
  }

  private total(count: Count): number {
    return count.shared + count.pending + count.writing;
  }

  private currentWindow(): number {
    return Math.floor(Date.now() / this.windowMs);
  }

  private resetTime(window: number): Date {
    return new Date((window + 1) * this.windowMs);
  }

  private entryKey(window: number, key: string): string {
    return `${this.name}.${window}.${Buffer.from(key).toString('hex') || '0'}`;
  }

  /** This replica's count of `key` in the current window (created on first sight; older windows dropped). */
  private count(key: string): Count {
    const window = this.currentWindow();
    const id = this.entryKey(window, key);
    let count = this.counts.get(id);
    if (!count) {
      for (const [old, c] of this.counts) if (c.window < window && !c.writer) this.counts.delete(old);
      count = { window, shared: 0, pending: 0, writing: 0, waiting: [], writer: false, stored: null };
      this.counts.set(id, count);
    }
    return count;
  }

  /**
   * Has the pending hits of `count` written (starting the write loop unless it runs); with `wait`, resolves once the
   * write that took this request's hit (the last pending one) ended: with the hit's place in the stored count (hits
   * of one replica keep their arrival order), or this replica's count when NATS refused the write.
   */
  private write(count: Count, key: string, wait = false): Promise<number> {
    const offset = count.pending;
    const done = wait
      ? new Promise<number>((resolve) => count.waiting.push({ offset, resolve }))
      : Promise.resolve(this.total(count));
    if (!count.writer) void this.drain(count, this.entryKey(count.window, key));
    return done;
  }

  /** The write loop of one count: one compare-and-set per round with every hit pending then, until none is left. */
  private async drain(count: Count, id: string): Promise<void> {
    count.writer = true;
    try {
      const kv = await this.open();
      let failed = false;
      while (!failed && (count.pending !== 0 || count.waiting.length)) {
        const delta = count.pending;
        const waiters = count.waiting.splice(0);
        count.pending = 0;
        count.writing += delta;
        let stored: number | null = null;
        try {
          if (delta !== 0 && kv && this.bus.isConnected()) stored = await this.add(kv, id, count, delta);
        } catch (err) {
          this.logger.warn({ err, limiter: this.name }, 'rate limit hits not shared yet (kept for the next write)');
        }
        count.writing -= delta;
        if (stored === null) {
          count.pending += delta;
          failed = delta !== 0;
          for (const waiter of waiters) waiter.resolve(this.total(count));
        } else {
          count.shared = Math.max(count.shared, stored);
          for (const waiter of waiters) waiter.resolve(stored - delta + waiter.offset);
        }
      }
    } finally {
      count.writer = false;
    }
  }

  /**
   * Adds `delta` to the stored counter `id` by compare-and-set against `count.stored` (read first when not known,
   * read again when another write came in between); the new total.
   */
  private async add(kv: KV, id: string, count: Count, delta: number): Promise<number> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        if (!count.stored) {
          const entry = await kv.get(id);
          if (entry?.operation !== 'PUT') {
            count.stored = { value: delta, revision: await kv.create(id, String(delta)) };
            return delta;
          }
          count.stored = { value: Number(entry.string()) || 0, revision: entry.revision };
        }
        const value = count.stored.value + delta;
        count.stored = { value, revision: await kv.update(id, String(value), count.stored.revision) };
        return value;
      } catch (err) {
        count.stored = null;
        if (!/wrong last sequence|key exists/i.test(String(err))) throw err;
      }
    }
    throw new Error(`counter ${id} kept changing during ${MAX_ATTEMPTS} attempts`);
  }

  /** The bucket (created when missing, watched for the other replicas' writes), or null while NATS refuses. */
  private open(): Promise<KV | null> {
    if (this.kv) return this.kv;
    if (Date.now() - this.openFailedAt < REOPEN_MS) return Promise.resolve(null);
    this.kv = this.connect().catch((err) => {
      this.logger.warn({ err, limiter: this.name }, 'rate limit bucket unavailable; counting this replica only');
      this.openFailedAt = Date.now();
      this.kv = null;
      return null;
    });
    return this.kv;
  }

  private async connect(): Promise<KV> {
    const name = this.bus.resourceName(RATE_LIMIT_BUCKET);
    const kv = await this.bus
      .keyValue(RATE_LIMIT_BUCKET, { history: 1, ttlMs: 2 * this.windowMs })
      .catch(() => new Kvm(this.bus.nc).open(name));
    const updates = await kv.watch({ key: `${this.name}.>`, include: 'updates', ignoreDeletes: true });
    void (async () => {
      for await (const entry of updates) {
        const count = this.counts.get(entry.key);
        if (count && entry.operation === 'PUT') {
          const value = Number(entry.string()) || 0;
          count.shared = Math.max(count.shared, value);
          if (!count.stored || entry.revision > count.stored.revision)
            count.stored = { value, revision: entry.revision };
        }
      }
    })();
    return kv;
  }
}
