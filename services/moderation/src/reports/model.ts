import mongoose, { Schema } from 'mongoose';

/** A stored message report (`_id` = the API id, 24 hex characters, time-ordered). */
export interface ReportRow {
  _id: string;
  /** Id of the platform interaction that filed it (unique: a redelivered dispatch files nothing twice). */
  interaction: string;
  guild: string;
  message: string;
  channel: string;
  author: string;
  authorName: string;
  content: string;
  reporter: string;
  reporterName: string;
  reason: string;
  queueThread: string | null;
  status: 'open' | 'actioned' | 'dismissed';
  caseNumber: number | null;
  /** True once the reporter's interaction was answered. */
  answered: boolean;
  resolvedBy: string | null;
  resolvedByName: string | null;
  resolvedAt: Date | null;
  createdAt: Date;
}

const reportSchema = new Schema<ReportRow>(
  {
    _id: { type: String, required: true },
    interaction: { type: String, required: true },
    guild: { type: String, required: true },
    message: { type: String, required: true },
    channel: { type: String, required: true },
    author: { type: String, required: true },
    authorName: { type: String, required: true },
    content: { type: String, default: '' },
    reporter: { type: String, required: true },
    reporterName: { type: String, required: true },
    reason: { type: String, default: '' },
    queueThread: { type: String, default: null },
    status: { type: String, required: true },
    caseNumber: { type: Number, default: null },
    answered: { type: Boolean, default: false },
    resolvedBy: { type: String, default: null },
    resolvedByName: { type: String, default: null },
    resolvedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'reports' },
);
reportSchema.index({ interaction: 1 }, { unique: true });
reportSchema.index({ guild: 1, message: 1, reporter: 1 }, { unique: true });
reportSchema.index({ guild: 1, _id: -1 });
reportSchema.index({ guild: 1, status: 1, _id: -1 });
/** Index of the reports about a member's messages, newest first (the member record hints it). */
export const REPORTS_BY_AUTHOR = { guild: 1, author: 1, _id: -1 } as const;
reportSchema.index(REPORTS_BY_AUTHOR);

export const ReportModel = mongoose.models.Report ?? mongoose.model<ReportRow>('Report', reportSchema);
