import type { EventBus, Logger } from '@guildhall/shared';
import { type KV, Kvm } from '@nats-io/kv';
import type { IncrementResponse, Options, Store } from 'express-rate-limit';

/** The NATS key-value bucket (namespace prefix added) holding the hits of every window, shared by the replicas. */
export const RATE_LIMIT_BUCKET = 'gateway_rate_limits';
/** Share of the limit below it at which each hit is written to the bucket before the request is answered. */
const SYNC_SHARE = 0.1;
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
  /** The write in progress (one per key at a time; hits meanwhile wait for the next). */
  push: Promise<void> | null;
  /** The first read of the stored total (a restarted replica learns the hits counted before). */
  loaded: Promise<void>;
}

/**
 * An `express-rate-limit` store shared by every gateway replica: fixed windows of `windowMs` aligned to the clock,
 * one counter per client and window in the NATS key-value bucket `RATE_LIMIT_BUCKET` (key
 * `<name>.<window number>.<client key in hex>`, entries expire after two windows), so the limit holds across
 * replicas and a restarted replica keeps counting where the others are.
 *
 * Cost: a request does not wait for NATS while its client is far from the limit. Its hit is added to the counter in
 * the background (compare-and-set; the hits that arrive during a write go in the next one, so a busy client costs one
 * write at a time per replica), and every replica watches the bucket for the others' writes. Within `SYNC_SHARE` of
 * the limit (and for the first hit of a client in a window on this replica, which reads the stored total), the hit
 * is written before the answer, so the last allowed request is exact across replicas; past the limit, refusals are
 * answered from memory. When NATS is unreachable the replica counts its own hits and writes them once it is back.
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
    await count.loaded;
    const total = this.total(count);
    if (total <= this.limit && total > this.limit * (1 - SYNC_SHARE) - 1) await this.write(count, key);
    else void this.write(count, key);
    return { totalHits: this.total(count), resetTime: this.resetTime(count.window) };
  }

  /** Takes back a hit of `key` (express-rate-limit's skip of failed or successful requests). */
  async decrement(key: string): Promise<void> {
    const count = this.count(key);
    count.pending -= 1;
    void this.write(count, key);
  }

  /** Forgets `key`'s hits of the current window, here and in the bucket. */
  async resetKey(key: string): Promise<void> {
    const window = this.currentWindow();
    this.counts.delete(this.entryKey(window, key));
    const kv = await this.open();
    await kv?.delete(this.entryKey(window, key)).catch(() => undefined);
  }

  /** The current window's hits of `key` as this replica knows them (no hit counted). */
  async get(key: string): Promise<{ totalHits: number; resetTime: Date } | undefined> {
    const count = this.counts.get(this.entryKey(this.currentWindow(), key));
    if (!count) return undefined;
    await count.loaded;
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

  /** This replica's count of `key` in the current window (created, reading the stored total, on first sight). */
  private count(key: string): Count {
    const window = this.currentWindow();
    const id = this.entryKey(window, key);
    const count = this.counts.get(id);
    if (count) return count;
    this.dropPastWindows(window);
    const created: Count = { window, shared: 0, pending: 0, writing: 0, push: null, loaded: Promise.resolve() };
    created.loaded = this.read(id).then((stored) => {
      created.shared = Math.max(created.shared, stored);
    });
    this.counts.set(id, created);
    return created;
  }

  private dropPastWindows(window: number): void {
    for (const [id, count] of this.counts) if (count.window < window && !count.push) this.counts.delete(id);
  }

  private async read(id: string): Promise<number> {
    const kv = await this.open();
    if (!kv) return 0;
    const entry = await kv.get(id).catch(() => null);
    return entry?.operation === 'PUT' ? Number(entry.string()) || 0 : 0;
  }

  /** Writes the pending hits of `count` (waiting for a write in progress, then writing what came meanwhile). */
  private write(count: Count, key: string): Promise<void> {
    if (count.push) return count.push.then(() => (count.pending !== 0 ? this.write(count, key) : undefined));
    if (count.pending === 0) return Promise.resolve();
    count.push = this.pushPending(count, this.entryKey(count.window, key)).finally(() => {
      count.push = null;
    });
    return count.push;
  }

  private async pushPending(count: Count, id: string): Promise<void> {
    const kv = await this.open();
    if (!kv) return;
    while (count.pending !== 0) {
      const delta = count.pending;
      count.pending = 0;
      count.writing += delta;
      try {
        const stored = await this.add(kv, id, delta);
        count.shared = Math.max(count.shared, stored);
      } catch (err) {
        count.pending += delta;
        this.logger.warn({ err, limiter: this.name }, 'rate limit hits not shared yet (kept for the next write)');
        return;
      } finally {
        count.writing -= delta;
      }
    }
  }

  /** Adds `delta` to the stored counter `id` (compare-and-set, retried on a concurrent write); the new total. */
  private async add(kv: KV, id: string, delta: number): Promise<number> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await kv.get(id);
      try {
        if (entry?.operation !== 'PUT') {
          await kv.create(id, String(delta));
          return delta;
        }
        const next = (Number(entry.string()) || 0) + delta;
        await kv.update(id, String(next), entry.revision);
        return next;
      } catch (err) {
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
    const kvm = new Kvm(this.bus.nc);
    const kv = await kvm.create(name, { history: 1, ttl: 2 * this.windowMs }).catch(() => kvm.open(name));
    const updates = await kv.watch({ key: `${this.name}.>`, include: 'updates', ignoreDeletes: true });
    void (async () => {
      for await (const entry of updates) {
        const count = this.counts.get(entry.key);
        if (count && entry.operation === 'PUT') count.shared = Math.max(count.shared, Number(entry.string()) || 0);
      }
    })();
    return kv;
  }
}
