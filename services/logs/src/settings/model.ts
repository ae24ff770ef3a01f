import mongoose, { Schema } from 'mongoose';

/** Stored log settings of one guild (`_id` = guild id). Destination channels are null when a category is off. */
export interface SettingsRow {
  _id: string;
  messagesChannel: string | null;
  membersChannel: string | null;
  moderationChannel: string | null;
  serverChannel: string | null;
  ignoredChannels: string[];
  ignoreBots: boolean;
  /** Log messages of private threads (never ticket threads); off by default. */
  logPrivateThreads: boolean;
  updatedAt: Date;
}

const schema = new Schema<SettingsRow>(
  {
    _id: { type: String, required: true },
    messagesChannel: { type: String, default: null },
    membersChannel: { type: String, default: null },
    moderationChannel: { type: String, default: null },
    serverChannel: { type: String, default: null },
    ignoredChannels: { type: [String], default: [] },
    ignoreBots: { type: Boolean, default: false },
    logPrivateThreads: { type: Boolean, default: false },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'settings' },
);

export const SettingsModel = mongoose.models.LogSettings ?? mongoose.model<SettingsRow>('LogSettings', schema);

/** The four log categories and the settings field holding each one's destination channel. */
export const CATEGORY_FIELDS = {
  messages: 'messagesChannel',
  members: 'membersChannel',
  moderation: 'moderationChannel',
  server: 'serverChannel',
} as const;
export type Category = keyof typeof CATEGORY_FIELDS;
