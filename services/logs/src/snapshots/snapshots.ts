import type { AnyBulkWriteOperation } from 'mongoose';
import { type SnapshotKind, SnapshotModel, type SnapshotRow, snapshotId } from './model';

/** The stored snapshot of one object, or null (deleted ones included). */
export async function getSnapshot(guild: string, kind: SnapshotKind, id: string): Promise<SnapshotRow | null> {
  return SnapshotModel.findById(snapshotId(guild, kind, id)).lean<SnapshotRow>();
}

/**
 * Stores `data` as the current state of an object; returns the previous snapshot (null when first seen). `blind`
 * marks an update whose previous state was unknown (`blindAt` = now); any other write clears the mark.
 */
export async function putSnapshot(
  guild: string,
  kind: SnapshotKind,
  id: string,
  data: Record<string, unknown>,
  blind = false,
): Promise<SnapshotRow | null> {
  const now = new Date();
  return SnapshotModel.findOneAndUpdate(
    { _id: snapshotId(guild, kind, id) },
    { $set: { guild, kind, id, data, deleted: false, blindAt: blind ? now : null, updatedAt: now } },
    { upsert: true, returnDocument: 'before' },
  ).lean<SnapshotRow>();
}

/** Marks an object deleted (its data kept for undo); returns the snapshot as it was before. */
export async function deleteSnapshot(guild: string, kind: SnapshotKind, id: string): Promise<SnapshotRow | null> {
  return SnapshotModel.findOneAndUpdate(
    { _id: snapshotId(guild, kind, id) },
    { $set: { deleted: true, updatedAt: new Date() } },
    { returnDocument: 'before' },
  ).lean<SnapshotRow>();
}

/** Current (not deleted) snapshots of one kind in a guild. */
export async function listSnapshots(guild: string, kind: SnapshotKind): Promise<SnapshotRow[]> {
  return SnapshotModel.find({ guild, kind, deleted: false }).lean<SnapshotRow[]>();
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
      update: { $set: { guild, kind, id: item.id, data: item.data, deleted: false, updatedAt: now } },
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
