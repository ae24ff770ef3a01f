import mongoose, { Schema } from 'mongoose';
import { type Lease, leasePath } from '../lease';

/** Where an archived attachment stands: waiting for its download, stored in GridFS, or kept as a link only. */
export type ArchiveState = 'pending' | 'stored' | 'link';
/** Why an attachment is kept as a link: over the per-file cap, over the guild's quota, or the CDN refused it. */
export type LinkReason = 'too_large' | 'guild_quota' | 'unreachable';

/**
 * One attachment of a captured message (`_id` = `<guild>:<attachment id>`). `url` is the platform's CDN URL, `file`
 * the GridFS file once stored. `expiresAt` (null = kept) is when the retention sweep deletes row and file: set by
 * the owner (message log: the message's 7 days; tickets: the close plus the retention period).
 */
export interface ArchivedAttachmentRow {
  _id: string;
  guild: string;
  attachment: string;
  message: string;
  channel: string;
  filename: string;
  contentType: string | null;
  /** Size the platform declared, in bytes. */
  size: number;
  url: string;
  state: ArchiveState;
  reason: LinkReason | null;
  file: mongoose.Types.ObjectId | null;
  /** Bytes stored in GridFS (counted against the guild's quota). */
  bytes: number;
  attempts: number;
  /** Earliest time of the next download attempt. */
  nextAt: Date;
  expiresAt: Date | null;
  createdAt: Date;
  lease: Lease | null;
}

const schema = new Schema<ArchivedAttachmentRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    attachment: { type: String, required: true },
    message: { type: String, required: true },
    channel: { type: String, required: true },
    filename: { type: String, required: true },
    contentType: { type: String, default: null },
    size: { type: Number, required: true },
    url: { type: String, required: true },
    state: { type: String, required: true },
    reason: { type: String, default: null },
    file: { type: Schema.Types.ObjectId, default: null },
    bytes: { type: Number, default: 0 },
    attempts: { type: Number, default: 0 },
    nextAt: { type: Date, required: true },
    expiresAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    lease: leasePath,
  },
  { versionKey: false, collection: 'archived_attachments' },
);
schema.index({ state: 1, nextAt: 1 });
schema.index({ message: 1 });
schema.index({ channel: 1 });
schema.index({ expiresAt: 1 });

export const ArchivedAttachmentModel =
  (mongoose.models.ArchivedAttachment as mongoose.Model<ArchivedAttachmentRow> | undefined) ??
  mongoose.model<ArchivedAttachmentRow>('ArchivedAttachment', schema);

/** Bytes a guild has archived in this service (`_id` = guild id); reserved before a download, freed on delete. */
interface ArchiveUsageRow {
  _id: string;
  bytes: number;
}

export const ArchiveUsageModel =
  (mongoose.models.ArchiveUsage as mongoose.Model<ArchiveUsageRow> | undefined) ??
  mongoose.model<ArchiveUsageRow>(
    'ArchiveUsage',
    new Schema<ArchiveUsageRow>(
      { _id: { type: String, required: true }, bytes: { type: Number, default: 0 } },
      { versionKey: false, collection: 'archive_usage' },
    ),
  );

/** The GridFS bucket holding archived files (`attachments.files` / `attachments.chunks` of the service's database). */
export function attachmentBucket(): mongoose.mongo.GridFSBucket {
  const db = mongoose.connection.db;
  if (!db) throw new Error('attachment archive used before MongoDB is connected');
  return new mongoose.mongo.GridFSBucket(db, { bucketName: 'attachments' });
}
