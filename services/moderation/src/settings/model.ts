import mongoose, { Schema } from 'mongoose';

/** Moderation settings of a guild (`_id` = guild id): the queue channels of appeals and reports. */
export interface SettingsRow {
  _id: string;
  appealsChannel: string | null;
  reportsChannel: string | null;
}

const settingsSchema = new Schema<SettingsRow>(
  {
    _id: { type: String, required: true },
    appealsChannel: { type: String, default: null },
    reportsChannel: { type: String, default: null },
  },
  { versionKey: false, collection: 'settings' },
);

export const SettingsModel =
  mongoose.models.ModerationSettings ?? mongoose.model<SettingsRow>('ModerationSettings', settingsSchema);

/** The settings of a guild that never set them: both queues off. */
export function defaultSettings(guild: string): SettingsRow {
  return { _id: guild, appealsChannel: null, reportsChannel: null };
}

/** The settings of `guild`; both channels null when never set. */
export async function getSettings(guild: string): Promise<SettingsRow> {
  const row = await SettingsModel.findById(guild).lean<SettingsRow>();
  return row ?? defaultSettings(guild);
}
