import { randomUUID } from 'node:crypto';
import { type Model, Schema } from 'mongoose';

/**
 * A claim on one stored document (due work, an undo, an appeal being decided): `holder` is a random id of the claim,
 * `until` when it lapses (a replica that crashed while holding it loses it then, and another replica takes over).
 * Stored in the document's `lease` field (`null` when nobody holds it).
 */
export interface Lease {
  holder: string;
  until: Date;
}

/** How long a claim is held before another replica may take it over, in milliseconds (2 min). */
export const LEASE_MS = 120_000;

/** The mongoose path of a document's `lease` (`lease: leasePath` in a schema). */
export const leasePath = {
  type: new Schema<Lease>(
    { holder: { type: String, required: true }, until: { type: Date, required: true } },
    { _id: false, versionKey: false },
  ),
  default: null,
};

/**
 * Index of documents by the holder of their lease: `schema.index(LEASE_HOLDER_INDEX)` on every collection whose leases
 * are renewed or claimed in batches (`renew` and `claimMany` find the documents by `lease.holder` alone, every run of
 * their poller, and hint this index: on a collection without it they fail instead of scanning the collection). Not
 * sparse: MongoDB reads a sparse index for such an equality, the embedded server does not.
 */
export const LEASE_HOLDER_INDEX = { 'lease.holder': 1 } as const;

/** Filter of documents nobody holds at `now`: no lease (or none stored yet) or a lapsed one. */
export function leaseFree(now: Date): Record<string, unknown> {
  return { $or: [{ lease: null }, { 'lease.until': { $lte: now } }] };
}

/** Options of a claim: more changes made atomically with it, the order among candidates and the index to use. */
export interface ClaimOptions {
  update?: Record<string, unknown>;
  sort?: Record<string, 1 | -1>;
  hint?: Record<string, 1 | -1>;
}

/**
 * Claims of the documents of one collection, held for `ms` milliseconds. Every step is one atomic MongoDB update
 * matching the lease, so several replicas may race: exactly one wins a document, and a holder whose claim was taken
 * over (it lapsed) changes nothing with its stale lease. No state is kept in process memory.
 */
export class Leases<T extends { _id: string }> {
  constructor(
    private readonly model: Model<T>,
    private readonly ms: number = LEASE_MS,
  ) {}

  /**
   * Claims the first free document matching `filter` (in `sort` order), applying `update` in the same write.
   * Returns the document as claimed and its lease, or null when none is free.
   */
  async claim(filter: Record<string, unknown>, options: ClaimOptions = {}): Promise<{ row: T; lease: Lease } | null> {
    const now = new Date();
    const lease = this.newLease(now);
    const { update = {}, sort, hint } = options;
    const row = await this.model
      .findOneAndUpdate(
        { $and: [filter, leaseFree(now)] },
        { ...update, $set: { ...(update.$set as object | undefined), lease } },
        { returnDocument: 'after', ...(sort && { sort }), ...(hint && { hint }) },
      )
      .lean<T>();
    return row ? { row, lease } : null;
  }

  /**
   * Claims up to `limit` free documents matching `filter` under one lease (the oldest by `sort` first). Documents
   * another replica claims between the look-up and the claim are left to it. Returns the claimed documents (in
   * `sort` order) and their lease. Needs `LEASE_HOLDER_INDEX` on the collection (see `renew`).
   */
  async claimMany(
    filter: Record<string, unknown>,
    limit: number,
    sort: Record<string, 1 | -1>,
  ): Promise<{ rows: T[]; lease: Lease }> {
    const now = new Date();
    const lease = this.newLease(now);
    const free = { $and: [filter, leaseFree(now)] };
    const candidates = await this.model.find(free, { _id: 1 }).sort(sort).limit(limit).lean<Array<{ _id: string }>>();
    if (!candidates.length) return { rows: [], lease };
    await this.model.updateMany({ $and: [{ _id: { $in: candidates.map((c) => c._id) } }, free] }, { $set: { lease } });
    const rows = await this.model
      .find({ 'lease.holder': lease.holder })
      .hint(LEASE_HOLDER_INDEX)
      .sort(sort)
      .lean<T[]>();
    return { rows, lease };
  }

  /**
   * Extends `lease` by the claim duration from now; the renewed lease, or null when it was lost (taken over). Needs
   * `LEASE_HOLDER_INDEX` on the collection (it throws MongoDB's bad-hint error without it).
   */
  async renew(lease: Lease): Promise<Lease | null> {
    const renewed = { holder: lease.holder, until: new Date(Date.now() + this.ms) };
    const result = await this.model.updateMany(
      { 'lease.holder': lease.holder },
      { $set: { lease: renewed } },
      { hint: LEASE_HOLDER_INDEX },
    );
    return result.matchedCount > 0 ? renewed : null;
  }

  /**
   * Ends the claim on document `id`, applying `update` in the same write. Returns the document after the change, or
   * null when the lease was lost (nothing changed).
   */
  release(id: string, lease: Lease, update: Record<string, unknown> = {}): Promise<T | null> {
    return this.model
      .findOneAndUpdate(
        { _id: id, 'lease.holder': lease.holder },
        { ...update, $set: { ...(update.$set as object | undefined), lease: null } },
        { returnDocument: 'after' },
      )
      .lean<T>()
      .exec() as Promise<T | null>;
  }

  /**
   * Deletes document `id` if it is still held under `lease` (a holder whose claim was taken over deletes nothing).
   * Returns whether it was deleted.
   */
  async remove(id: string, lease: Lease): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: id, 'lease.holder': lease.holder });
    return result.deletedCount === 1;
  }

  /** Like `release` for every document of `ids` still held under `lease`; returns how many were released. */
  async releaseMany(ids: string[], lease: Lease, update: Record<string, unknown> = {}): Promise<number> {
    const result = await this.model.updateMany(
      { _id: { $in: ids }, 'lease.holder': lease.holder },
      { ...update, $set: { ...(update.$set as object | undefined), lease: null } },
    );
    return result.modifiedCount;
  }

  /**
   * Start-up migration from a claim field of earlier releases (`busyUntil`, `undoing`, `claimedAt`, `leaseUntil`):
   * a document that field marks as held gets a lease of the full claim duration from now (its holder may still be
   * running), and the field is removed from every document that has it. Idempotent; safe on several replicas.
   */
  async adoptLegacy(field: string): Promise<void> {
    const lease = { holder: 'legacy', until: new Date(Date.now() + this.ms) };
    await this.model.collection.updateMany({ [field]: { $nin: [null] } }, { $set: { lease }, $unset: { [field]: '' } });
    await this.model.collection.updateMany({ [field]: { $exists: true } }, { $unset: { [field]: '' } });
  }

  /** A new claim from `now` (for a document stored already claimed by the request that creates it). */
  newLease(now = new Date()): Lease {
    return { holder: randomUUID(), until: new Date(now.getTime() + this.ms) };
  }
}
