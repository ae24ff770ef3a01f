import mongoose, { Schema } from 'mongoose';

/** How long messages are kept: 7 days, in seconds (TTL on `createdAt`, the time encoded in the message id). */
export const MESSAGE_TTL_SECONDS = 7 * 24 * 3600;

/**
 * A message seen on the platform. `_id` = message id; `key` = id padded to 20 digits (time order, `before` cursor);
 * `content` is the current text, `original` the first one seen; `createdAt` comes from the id and drives the TTL.
 * A forward (message reference type 1) keeps the forwarded text and files (from `message_snapshots[0].message`) as
 * its content and attachments, and `forwardOf` names the original; `embeds` and `stickers` keep what a webhook,
 * bot or sticker message carries besides text.
 */
export interface MessageRow {
  _id: string;
  key: string;
  guild: string;
  channel: string;
  author: string;
  authorName: string;
  bot: boolean;
  content: string;
  original: string;
  attachments: string[];
  replyTo: string | null;
  forwardOf: { guild: string | null; channel: string | null; message: string | null } | null;
  embeds: Array<Record<string, unknown>>;
  stickers: Array<{ id: string; name: string }>;
  editedAt: Date | null;
  deletedAt: Date | null;
  createdAt: Date;
}

/**
 * The filter on `deletedAt` of deleted messages: `deletedAt` is either null or the time the delete was stored, so
 * "deleted" is `deletedAt >= 1970-01-01` (a range only matches dates; the same answer as `$ne: null`).
 */
export const DELETED = { $gte: new Date(0) };

/**
 * Name of the index of deleted messages by author, newest first (the member record's deleted messages): partial, it
 * holds only messages matching `DELETED`, so reading an author's newest deleted messages walks at most `limit`
 * entries (plus those of hidden channels) however many messages the author or the guild stored.
 */
export const DELETED_BY_AUTHOR = 'deleted_by_author';

/**
 * Name of the index of deleted messages by guild, newest `_id` first: partial like `DELETED_BY_AUTHOR`, so it holds
 * the few deleted messages only. A text search for deleted messages (`deleted=true`) reads the text index; the
 * embedded store intersects its postings with this index (both in `_id` order) and so reads only deleted messages'
 * documents instead of every message containing the words.
 */
export const DELETED_NEWEST = 'deleted_newest';

const schema = new Schema<MessageRow>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    guild: { type: String, required: true },
    channel: { type: String, required: true },
    author: { type: String, required: true },
    authorName: { type: String, required: true },
    bot: { type: Boolean, default: false },
    content: { type: String, default: '' },
    original: { type: String, default: '' },
    attachments: { type: [String], default: [] },
    replyTo: { type: String, default: null },
    forwardOf: { type: Schema.Types.Mixed, default: null },
    embeds: { type: Schema.Types.Mixed, default: [] },
    stickers: { type: Schema.Types.Mixed, default: [] },
    editedAt: { type: Date, default: null },
    deletedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'messages' },
);
schema.index({ guild: 1, content: 'text' }, { default_language: 'none', name: 'guild_content_text' });
schema.index({ guild: 1, key: -1 });
schema.index({ guild: 1, channel: 1, key: -1 });
schema.index(
  { guild: 1, author: 1, key: -1 },
  { name: DELETED_BY_AUTHOR, partialFilterExpression: { deletedAt: DELETED } },
);
schema.index({ guild: 1, _id: -1 }, { name: DELETED_NEWEST, partialFilterExpression: { deletedAt: DELETED } });
schema.index({ createdAt: 1 }, { expireAfterSeconds: MESSAGE_TTL_SECONDS });

export const MessageModel = mongoose.models.LoggedMessage ?? mongoose.model<MessageRow>('LoggedMessage', schema);
