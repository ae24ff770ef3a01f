import { randomUUID } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { Logger } from '../logger';

/** The key-value bucket (namespace prefix added) holding partition leases and consumer members. */
export const LEASE_BUCKET = 'bus_partition_leases';

/** How long a lease or a membership lives without renewal, in ms: a crashed replica's partitions are free after it. */
export const PARTITION_LEASE_MS = 6_000;

/** Value of a lease key its holder released cleanly (nothing of the partition left unacknowledged). */
const FREE = 'free';

/** What the leases drive: a partition to start handling (`clean`: released by its last holder) or to stop. */
export interface PartitionRunners {
  start(partition: number, clean: boolean): void;
  /** Resolves once the partition's messages in hand are acknowledged or handed back. */
  stop(partition: number): Promise<void>;
}

/**
 * Which partitions of one durable consumer this replica handles. A replica holds a lease per partition (key
 * `lease.<durable>.<partition>` of the KV bucket `LEASE_BUCKET`, whose keys expire `PARTITION_LEASE_MS` after their
 * last write) and announces itself (`member.<durable>.<replica>`). Every `PARTITION_LEASE_MS / 3` each replica renews
 * what it holds (compare-and-set on the key's revision: a lease taken over is lost, its partition stopped), gives back
 * what exceeds its share (`ceil(partitions / live members)`, after the partition's messages in hand are done) and
 * claims free partitions up to its share. So at most one replica handles a partition at a time, partitions spread
 * over the live replicas, and a crashed replica's partitions are taken over once its leases lapse.
 */
export class PartitionLeases {
  private readonly instance = randomUUID();
  private readonly held = new Map<number, number>();
  private readonly releasing = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly kv: KV,
    private readonly durable: string,
    private readonly partitions: number,
    private readonly runners: PartitionRunners,
    private readonly logger: Logger,
  ) {}

  /** Claims a first share at once, then keeps the leases on a timer. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick());
    }, PARTITION_LEASE_MS / 3);
  }

  /** Stops every held partition (its messages in hand done) and frees its lease for another replica. */
  async close(): Promise<void> {
    this.closed = true;
    await this.ticking;
    await Promise.all([...this.held.keys()].map((p) => this.releasing.get(p) ?? this.release(p)));
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.kv.delete(this.memberKey()).catch(() => undefined);
  }

  private leaseKey(partition: number): string {
    return `lease.${this.durable}.${partition}`;
  }

  private memberKey(): string {
    return `member.${this.durable}.${this.instance}`;
  }

  private async tick(): Promise<void> {
    try {
      await this.renew();
      if (this.closed) return;
      await this.kv.put(this.memberKey(), '1');
      let members = 0;
      for await (const _ of await this.kv.keys(`member.${this.durable}.*`)) members++;
      const share = Math.ceil(this.partitions / Math.max(1, members));
      const kept = [...this.held.keys()].filter((p) => !this.releasing.has(p)).sort((a, b) => b - a);
      for (const p of kept.slice(0, Math.max(0, kept.length - share))) void this.release(p);
      const offset = Number.parseInt(this.instance.slice(0, 8), 16) % this.partitions;
      for (let i = 0; i < this.partitions && this.held.size - this.releasing.size < share; i++) {
        const p = (offset + i) % this.partitions;
        if (!this.held.has(p) && !this.releasing.has(p)) await this.claim(p);
      }
    } catch (err) {
      this.logger.warn({ err, durable: this.durable }, 'partition leases could not be kept this round');
    }
  }

  private async renew(): Promise<void> {
    for (const [p, revision] of this.held) {
      try {
        this.held.set(p, await this.kv.update(this.leaseKey(p), this.instance, revision));
      } catch (err) {
        this.logger.warn({ err, durable: this.durable, partition: p }, 'partition lease lost; partition stopped');
        this.held.delete(p);
        await this.runners.stop(p);
      }
    }
  }

  private async claim(p: number): Promise<void> {
    const entry = await this.kv.get(this.leaseKey(p));
    const clean = entry?.operation === 'PUT' && entry.string() === FREE;
    if (entry?.operation === 'PUT' && !clean) return;
    try {
      const revision = clean
        ? await this.kv.update(this.leaseKey(p), this.instance, entry.revision)
        : await this.kv.create(this.leaseKey(p), this.instance);
      this.held.set(p, revision);
    } catch {
      return; // another replica was faster
    }
    this.logger.debug({ durable: this.durable, partition: p, clean }, 'partition claimed');
    this.runners.start(p, clean);
  }

  /** Stops partition `p` (its lease still renewed meanwhile), then marks the lease free. */
  private release(p: number): Promise<void> {
    const done = (async () => {
      await this.runners.stop(p);
      await this.ticking;
      const revision = this.held.get(p);
      this.held.delete(p);
      if (revision !== undefined) await this.kv.update(this.leaseKey(p), FREE, revision).catch(() => undefined);
      this.releasing.delete(p);
    })();
    this.releasing.set(p, done);
    return done;
  }
}
