import { LEASE_HOLDER_INDEX, type Lease, Leases, leasePath } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/**
 * A journal event waiting to be posted as an embed to its category's log channel (`_id` = event id). `dueAt`
 * leaves the audit log a moment to name the actor; `lease` marks rows a flusher is posting; `postedAt` is set once
 * posted (or given up, with `error`). Rows expire a day after posting.
 */
export interface PostRow {
  _id: string;
  guild: string;
  channel: string;
  dueAt: Date;
  lease: Lease | null;
  attempts: number;
  postedAt: Date | null;
  message: string | null;
  error: string | null;
}

const postSchema = new Schema<PostRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    channel: { type: String, required: true },
    dueAt: { type: Date, required: true },
    lease: leasePath,
    attempts: { type: Number, default: 0 },
    postedAt: { type: Date, default: null },
    message: { type: String, default: null },
    error: { type: String, default: null },
  },
  { versionKey: false, collection: 'posts' },
);
postSchema.index({ postedAt: 1, dueAt: 1 });
/** The flusher's batch claim and its renewals find its rows by lease holder. */
postSchema.index(LEASE_HOLDER_INDEX);
postSchema.index(
  { postedAt: 1 },
  { expireAfterSeconds: 24 * 3600, partialFilterExpression: { postedAt: { $type: 'date' } } },
);

export const PostModel = mongoose.models.LogPost ?? mongoose.model<PostRow>('LogPost', postSchema);
/** Claims of the flushers posting rows (a batch per flush run; a crashed flusher's rows are posted again later). */
export const postLeases = new Leases<PostRow>(PostModel);

/**
 * The log message of a moderation case (`_id` = `<guild>:<number>`): where its embed was posted, so a
 * `case.updated` edits it. `message` is null while the first post is in flight.
 */
export interface CaseLogRow {
  _id: string;
  guild: string;
  caseNumber: number;
  channel: string;
  message: string | null;
  updatedAt: Date;
}

const caseLogSchema = new Schema<CaseLogRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    caseNumber: { type: Number, required: true },
    channel: { type: String, required: true },
    message: { type: String, default: null },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'caseLogs' },
);

export const CaseLogModel = mongoose.models.CaseLog ?? mongoose.model<CaseLogRow>('CaseLog', caseLogSchema);
