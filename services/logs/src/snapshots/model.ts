import mongoose, { Schema } from 'mongoose';

/** What a snapshot holds: the platform object as last seen (roles, channels incl. threads, emojis, stickers, the guild, members). */
export type SnapshotKind = 'guild' | 'role' | 'channel' | 'emoji' | 'sticker' | 'member';

/**
 * The last known state of one platform object (`_id` = `<guild>:<kind>:<id>`), taken from GUILD_CREATE and kept
 * current by the update dispatches. Gives update events their `before`, names to ids, and deleted roles and
 * channels the data to re-create them (undo). `deleted` marks objects that no longer exist.
 */
export interface SnapshotRow {
  _id: string;
  guild: string;
  kind: SnapshotKind;
  id: string;
  data: Record<string, unknown>;
  deleted: boolean;
  /** Set when a member update arrived with no earlier snapshot (its change is unknown until the audit entry tells). */
  blindAt?: Date | null;
  /** The dispatch (`dispatchKey`) that made the last change, and the state before it (see `putSnapshot`). */
  change?: string | null;
  prior?: Pick<SnapshotRow, 'data' | 'deleted' | 'blindAt'> | null;
  updatedAt: Date;
}

const schema = new Schema<SnapshotRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    kind: { type: String, required: true },
    id: { type: String, required: true },
    data: { type: Schema.Types.Mixed, required: true },
    deleted: { type: Boolean, default: false },
    blindAt: { type: Date, default: null },
    change: { type: String, default: null },
    prior: { type: Schema.Types.Mixed, default: null },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'snapshots', minimize: false },
);
schema.index({ guild: 1, kind: 1, deleted: 1 });

export const SnapshotModel = mongoose.models.Snapshot ?? mongoose.model<SnapshotRow>('Snapshot', schema);

/** The `_id` of a snapshot. */
export function snapshotId(guild: string, kind: SnapshotKind, id: string): string {
  return `${guild}:${kind}:${id}`;
}
