import type { AnyBulkWriteOperation } from 'mongoose';
import { type SnapshotKind, SnapshotModel, type SnapshotRow, snapshotId } from './model';

/** The stored snapshot of one object, or null (deleted ones included). */
export async function getSnapshot(guild: string, kind: SnapshotKind, id: string): Promise<SnapshotRow | null> {
  return SnapshotModel.findById(snapshotId(guild, kind, id)).lean<SnapshotRow>();
}

/**
 * Applies one dispatch's change to a snapshot and returns the snapshot as it was before (null when first seen).
 * `next` gets the stored snapshot (null when none) and returns its new state, or null to leave it as it is; it runs
 * only when the change is new. `change` is the dispatch's `dispatchKey`: when the stored snapshot was last changed by
 * that same dispatch (it was redelivered after a crash between this write and its journal events), nothing is written
 * and the state before that change is returned again, so the redelivered dispatch journals the same changes. One read
 * then one write: safe because one guild's dispatches are handled one at a time (partitioned consumers).
 */
export async function changeSnapshot(
  guild: string,
  kind: SnapshotKind,
  id: string,
  change: string,
  next: (current: SnapshotRow | null) => Pick<SnapshotRow, 'data' | 'deleted' | 'blindAt'> | null,
): Promise<SnapshotRow | null> {
  const _id = snapshotId(guild, kind, id);
  const current = await SnapshotModel.findById(_id).lean<SnapshotRow>();
  if (current && current.change === change) return current.prior ? { ...current, ...current.prior } : null;
  const state = next(current);
  if (!state) return current;
  const prior = current ? { data: current.data, deleted: current.deleted, blindAt: current.blindAt ?? null } : null;
  await SnapshotModel.updateOne(
    { _id },
    { $set: { guild, kind, id, ...state, change, prior, updatedAt: new Date() } },
    { upsert: true },
  );
  return current;
}

/**
 * Stores `data` as the current state of an object on behalf of dispatch `change` (its `dispatchKey`); returns the
 * previous snapshot (null when first seen; the same again when that dispatch is redelivered). Clears a `blindAt` mark.
 */
export async function putSnapshot(
  guild: string,
  kind: SnapshotKind,
  id: string,
  data: Record<string, unknown>,
  change: string,
): Promise<SnapshotRow | null> {
  return changeSnapshot(guild, kind, id, change, () => ({ data, deleted: false, blindAt: null }));
}

/**
 * Marks an object deleted on behalf of dispatch `change` (its data kept for undo); returns the snapshot as it was
 * before (the same again when that dispatch is redelivered), null when never seen.
 */
export async function deleteSnapshot(
  guild: string,
  kind: SnapshotKind,
  id: string,
  change: string,
): Promise<SnapshotRow | null> {
  return changeSnapshot(guild, kind, id, change, (current) =>
    current ? { data: current.data, deleted: true, blindAt: current.blindAt ?? null } : null,
  );
}

/**
 * Snapshots of one kind in a guild that exist, plus those dispatch `change` marked deleted (so a redelivered dispatch
 * finds again what it deleted; `deleteSnapshot` then returns their state before).
 */
export async function listSnapshots(guild: string, kind: SnapshotKind, change?: string): Promise<SnapshotRow[]> {
  const exists = { guild, kind, deleted: false };
  return SnapshotModel.find(change ? { guild, kind, $or: [{ deleted: false }, { change }] } : exists).lean<
    SnapshotRow[]
  >();
}

/** Replaces every snapshot of `kind` in `guild` with `items` (GUILD_CREATE); missing ones are marked deleted. */
export async function replaceSnapshots(
  guild: string,
  kind: SnapshotKind,
  items: Array<{ id: string; data: Record<string, unknown> }>,
): Promise<void> {
  const now = new Date();
  const ops: AnyBulkWriteOperation<SnapshotRow>[] = items.map((item) => ({
    updateOne: {
      filter: { _id: snapshotId(guild, kind, item.id) },
      update: {
        $set: { guild, kind, id: item.id, data: item.data, deleted: false, change: null, prior: null, updatedAt: now },
      },
      upsert: true,
    },
  }));
  if (ops.length) await SnapshotModel.bulkWrite(ops, { ordered: false });
  if (kind !== 'member') {
    await SnapshotModel.updateMany(
      { guild, kind, deleted: false, id: { $nin: items.map((i) => i.id) } },
      { $set: { deleted: true, updatedAt: now } },
    );
  }
}

/** Display name of a guild member from its snapshot (nick, then global name, then username), or null. */
export async function memberName(guild: string, user: string | null): Promise<string | null> {
  if (!user) return null;
  const row = await getSnapshot(guild, 'member', user);
  return typeof row?.data.name === 'string' ? row.data.name : null;
}

/** Name of a role or channel from its snapshot, or null. */
export async function objectName(guild: string, kind: SnapshotKind, id: string | null): Promise<string | null> {
  if (!id) return null;
  const row = await getSnapshot(guild, kind, id);
  return typeof row?.data.name === 'string' ? row.data.name : null;
}
