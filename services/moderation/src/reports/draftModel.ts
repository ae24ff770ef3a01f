import mongoose, { Schema } from 'mongoose';

/** How long a report draft waits for its modal to be submitted (the draft is then gone; the message is fetched). */
export const DRAFT_TTL_S = 3_600;

/**
 * The reported message as the "Report message" command resolved it, kept from the command until its modal is
 * submitted (the submission does not carry the message): `_id` = `<guild>:<reporter>:<message>`. In MongoDB, so any
 * replica can take the submission; a TTL index drops it `DRAFT_TTL_S` after the command.
 */
export interface ReportDraftRow {
  _id: string;
  channel: string;
  author: string;
  authorName: string;
  content: string;
  createdAt: Date;
}

const draftSchema = new Schema<ReportDraftRow>(
  {
    _id: { type: String, required: true },
    channel: { type: String, required: true },
    author: { type: String, required: true },
    authorName: { type: String, required: true },
    content: { type: String, default: '' },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'report_drafts' },
);
draftSchema.index({ createdAt: 1 }, { expireAfterSeconds: DRAFT_TTL_S });

export const ReportDraftModel =
  mongoose.models.ReportDraft ?? mongoose.model<ReportDraftRow>('ReportDraft', draftSchema);

/** The id of the draft of `reporter`'s report of `message` in `guild`. */
export function draftId(guild: string, reporter: string, message: string): string {
  return `${guild}:${reporter}:${message}`;
}
