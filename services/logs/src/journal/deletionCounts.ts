import { isDuplicateKey } from '@guildhall/shared';
import type { GatewayGuildAuditLogEntryCreateDispatchData } from 'discord-api-types/v10';
import mongoose, { Schema } from 'mongoose';

/**
 * What the service has seen of one MESSAGE_DELETE (72) audit entry (`_id` = the entry id). The platform groups the
 * deletions of one author's messages in one channel by one user into one entry and only increments its
 * `options.count` (with no new GUILD_AUDIT_LOG_ENTRY_CREATE), so each deletion it explains is one unit of that
 * count: `count` is how many units are accounted for (the first by the entry's own actor source, later ones by the
 * journal events in `events` that claimed one each). Stored, so every replica compares with the same count; rows
 * expire a day after the entry was created.
 */
export interface DeletionCountRow {
  _id: string;
  guild: string;
  count: number;
  /** Journal events (message_delete) that claimed a unit beyond the first. */
  events: string[];
  createdAt: Date;
}

const schema = new Schema<DeletionCountRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    count: { type: Number, required: true },
    events: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'deletion_counts' },
);
schema.index({ events: 1 });
schema.index({ createdAt: 1 }, { expireAfterSeconds: 24 * 3600 });

export const DeletionCountModel =
  (mongoose.models.DeletionCount as mongoose.Model<DeletionCountRow>) ??
  mongoose.model<DeletionCountRow>('DeletionCount', schema);

/**
 * Records what MESSAGE_DELETE entry `entryId` of `guild` (created at `createdAt`) accounts for: with `raise`, at
 * least `count` deletions (`$max`: the creation dispatch's count never lowers a count read earlier); without, `count`
 * only when the entry was never seen (a baseline; a known entry keeps its count, so its growth stays to be claimed).
 */
export async function sawDeletionCount(
  guild: string,
  entryId: string,
  createdAt: Date,
  count: number,
  raise: boolean,
): Promise<void> {
  const update = raise
    ? { $setOnInsert: { guild, events: [], createdAt }, $max: { count } }
    : { $setOnInsert: { guild, events: [], createdAt, count } };
  try {
    await DeletionCountModel.updateOne({ _id: entryId }, update, { upsert: true });
  } catch (err) {
    // two replicas inserting the same entry at once: the other's row exists now, so the update applies to it
    if (!isDuplicateKey(err)) throw err;
    await DeletionCountModel.updateOne({ _id: entryId }, update);
  }
}

/** The entry's `options.count` as a number (1 when absent or unreadable: an entry stands for one deletion at least). */
export function deletionCountOf(entry: Pick<GatewayGuildAuditLogEntryCreateDispatchData, 'options'>): number {
  const count = Number(entry.options?.count);
  return Number.isInteger(count) && count > 0 ? count : 1;
}
