import type { APIEmbed } from 'discord-api-types/v10';
import mongoose, { Schema } from 'mongoose';

/** A message captured in a ticket's thread (`_id` = platform message id). Kept after the thread is gone. */
export interface MessageRow {
  _id: string;
  guild: string;
  thread: string;
  author: string;
  authorName: string;
  avatar: string | null;
  bot: boolean;
  content: string;
  /** Attachment URLs on the platform's CDN (the archive maps them to Guildhall's copies, see `archivedLinks`). */
  attachments: string[];
  /** The message's embeds as the platform sent them (rendered in the transcript). */
  embeds: APIEmbed[];
  /** The platform's creation time of the message. */
  at: Date;
  editedAt: Date | null;
  /** Set by MESSAGE_DELETE; a deleted message leaves the transcript and a late redelivery cannot bring it back. */
  deletedAt: Date | null;
}

const messageSchema = new Schema<MessageRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    thread: { type: String, required: true },
    author: { type: String, required: true },
    authorName: { type: String, required: true },
    avatar: { type: String, default: null },
    bot: { type: Boolean, default: false },
    content: { type: String, default: '' },
    attachments: { type: [String], default: [] },
    embeds: { type: Schema.Types.Mixed, default: [] },
    at: { type: Date, required: true },
    editedAt: { type: Date, default: null },
    deletedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'messages' },
);
messageSchema.index({ thread: 1, at: 1 });

export const TicketMessageModel =
  (mongoose.models.TicketMessage as mongoose.Model<MessageRow> | undefined) ??
  mongoose.model<MessageRow>('TicketMessage', messageSchema);
