import { randomUUID } from 'node:crypto';
import type { KV } from '@nats-io/kv';
import type { Logger } from '../logger';

/** The key-value bucket (namespace prefix added) holding partition leases and consumer members. */
export const LEASE_BUCKET = 'bus_partition_leases';

/** How long a lease or a membership lives without renewal, in ms: a crashed replica's partitions are free after it. */
export const PARTITION_LEASE_MS = 15_000;
/**
 * How often a replica renews its leases and claims free partitions, in ms: four renewals per lease, so a lease
 * survives three missed ones (a slow NATS round), and a lapsed or freed partition is claimed within this time.
 */
export const LEASE_RENEW_MS = PARTITION_LEASE_MS / 4;
/**
 * How long before its lease could lapse a holder stops touching its partition (fencing), in ms: the lease is counted
 * from when its last successful write was sent, which is before the server stored it (and started its TTL).
 */
export const LEASE_FENCE_MARGIN_MS = 1_000;

/** Value of a lease key its holder released cleanly (nothing of the partition left unacknowledged). */
const FREE = 'free';

/** What the leases drive: a partition to start handling or to stop. */
export interface PartitionRunners {
  /** `holds` tells whether the lease is surely still held (its fencing check): once false, touch the partition no more. */
  start(partition: number, holds: () => boolean): void;
  /** Resolves once the partition's messages in hand are acknowledged or handed back. */
  stop(partition: number): Promise<void>;
}

/** A lease this replica holds: the lease key's revision, and when (`now`) its last successful write was sent. */
interface Lease {
  revision: number;
  sent: number;
}

/**
 * Which partitions of one durable consumer this replica handles. A replica holds a lease per partition (key
 * `lease.<durable>.<partition>` of the KV bucket `LEASE_BUCKET`, whose keys expire `PARTITION_LEASE_MS` after their
 * last write) and announces itself (`member.<durable>.<replica>`). Every `LEASE_RENEW_MS` each replica renews
 * what it holds (compare-and-set on the key's revision: a lease taken over is lost, its partition stopped), gives back
 * what exceeds its share (`ceil(partitions / live members)`, after the partition's messages in hand are done) and
 * claims free partitions up to its share. So at most one replica handles a partition at a time, partitions spread
 * over the live replicas, and a crashed replica's partitions are taken over once its leases lapse. Every write of a
 * held lease goes through one chain (`rounds`), so renewals and releases never race each other.
 *
 * Fencing: a holder counts its lease from when it sent the last write that succeeded (a monotonic clock, `now`), and
 * `holds` turns false `PARTITION_LEASE_MS - LEASE_FENCE_MARGIN_MS` after it, before any other replica can claim the
 * partition. A holder stalled past that (GC pause, SIGSTOP, an overloaded machine) finds its partition fenced when it
 * runs again and lets it go without writing the lease.
 */
export class PartitionLeases {
  private readonly instance = randomUUID();
  /**
   * Leases held: partition -> revision of the lease key, and when (`now`) its last successful write was sent. Each
   * claim has its own entry (renewals update it), so a claim's fencing check never answers for a later claim.
   */
  private readonly held = new Map<number, Lease>();
  /** Partitions being stopped (given back or lost): not claimed again until stopped. */
  private readonly stopping = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private rounds: Promise<void> = Promise.resolve();
  private closed = false;
  /** True while a timer round is queued or running: a slow round (a loaded machine) is not queued up behind. */
  private ticking = false;

  constructor(
    private readonly kv: KV,
    private readonly durable: string,
    private readonly partitions: number,
    private readonly runners: PartitionRunners,
    private readonly logger: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True while no other replica can have claimed `lease`'s partition yet (see the class's fencing). */
  private fresh(lease: Lease): boolean {
    return this.now() - lease.sent < PARTITION_LEASE_MS - LEASE_FENCE_MARGIN_MS;
  }

  /** Claims a first share at once, then keeps the leases on a timer. */
  async start(): Promise<void> {
    await this.enqueue(() => this.tick());
    if (this.closed) return;
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = true;
      void this.enqueue(() => this.tick()).finally(() => {
        this.ticking = false;
      });
    }, LEASE_RENEW_MS);
  }

  /** Stops every held partition (its messages in hand done) and frees its lease for another replica. */
  async close(): Promise<void> {
    this.closed = true;
    await this.rounds;
    await Promise.all([...this.held.keys()].map((p) => this.stopping.get(p) ?? this.release(p)));
    await Promise.all(this.stopping.values());
    if (this.timer) clearInterval(this.timer);
    await this.rounds;
    await this.kv.delete(this.memberKey()).catch(() => undefined);
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.rounds = this.rounds.then(step).catch((err) => {
      this.logger.warn({ err, durable: this.durable }, 'partition leases could not be kept this round');
    });
    return this.rounds;
  }

  private leaseKey(partition: number): string {
    return `lease.${this.durable}.${partition}`;
  }

  private memberKey(): string {
    return `member.${this.durable}.${this.instance}`;
  }

  private async tick(): Promise<void> {
    await this.renew();
    if (this.closed) return;
    await this.kv.put(this.memberKey(), '1');
    let members = 0;
    for await (const _ of await this.kv.keys(`member.${this.durable}.*`)) members++;
    const share = Math.ceil(this.partitions / Math.max(1, members));
    const kept = [...this.held.keys()].filter((p) => !this.stopping.has(p)).sort((a, b) => b - a);
    for (const p of kept.slice(0, Math.max(0, kept.length - share))) void this.release(p);
    const wanted = share - Math.min(kept.length, share);
    const offset = Number.parseInt(this.instance.slice(0, 8), 16) % this.partitions;
    const candidates = Array.from({ length: this.partitions }, (_, i) => (offset + i) % this.partitions).filter(
      (p) => !this.held.has(p) && !this.stopping.has(p),
    );
    // Each candidate is tried once: claiming one this replica already holds again would start a second consumer on it.
    let claimed = 0;
    for (let i = 0; i < candidates.length && claimed < wanted; ) {
      const batch = candidates.slice(i, i + wanted - claimed);
      i += batch.length;
      claimed += (await Promise.all(batch.map((p) => this.claim(p)))).filter(Boolean).length;
    }
  }

  private async renew(): Promise<void> {
    await Promise.all(
      [...this.held].map(async ([p, lease]) => {
        try {
          // a lease that may have lapsed may be another replica's by now: not written again
          if (!this.fresh(lease)) throw new Error('lease not renewed in time');
          const sent = this.now();
          lease.revision = await this.kv.update(this.leaseKey(p), this.instance, lease.revision);
          lease.sent = sent;
        } catch (err) {
          this.logger.warn({ err, durable: this.durable, partition: p }, 'partition lease lost; partition stopped');
          this.held.delete(p);
          if (!this.stopping.has(p)) this.track(p, this.runners.stop(p));
        }
      }),
    );
  }

  /** Claims partition `p` when its lease is free or lapsed; true when claimed. */
  private async claim(p: number): Promise<boolean> {
    const entry = await this.kv.get(this.leaseKey(p));
    const value = entry?.operation === 'PUT' ? entry.string() : null;
    const clean = value === FREE;
    // a lease still naming this replica was lost to an error (NATS unreachable), not to another replica
    if (value !== null && !clean && value !== this.instance) return false;
    const lease: Lease = { revision: 0, sent: this.now() };
    try {
      lease.revision =
        entry && value !== null
          ? await this.kv.update(this.leaseKey(p), this.instance, entry.revision)
          : await this.kv.create(this.leaseKey(p), this.instance);
    } catch {
      return false; // another replica was faster
    }
    this.held.set(p, lease);
    this.logger.debug({ durable: this.durable, partition: p, clean }, 'partition claimed');
    this.runners.start(p, () => this.held.get(p) === lease && this.fresh(lease));
    return true;
  }

  /** Stops partition `p` (its lease still renewed meanwhile), then marks the lease free. */
  private release(p: number): Promise<void> {
    return this.track(
      p,
      this.runners.stop(p).then(() =>
        this.enqueue(async () => {
          const revision = this.held.get(p)?.revision;
          this.held.delete(p);
          if (revision !== undefined) await this.kv.update(this.leaseKey(p), FREE, revision);
        }),
      ),
    );
  }

  private track(p: number, stopped: Promise<void>): Promise<void> {
    const done = stopped.finally(() => this.stopping.delete(p));
    this.stopping.set(p, done);
    return done;
  }
}
