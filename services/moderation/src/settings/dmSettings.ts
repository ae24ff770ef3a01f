import type { CaseDmSettings } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';

type Settings = z.infer<typeof CaseDmSettings>;

/** Case DM settings of a guild (`_id` = guild id): per action whether the member is told, and the appeal hint. */
export interface DmSettingsRow {
  _id: string;
  warn: boolean;
  timeout: boolean;
  kick: boolean;
  ban: boolean;
  appealHint: string | null;
}

const dmSettingsSchema = new Schema<DmSettingsRow>(
  {
    _id: { type: String, required: true },
    warn: { type: Boolean, default: true },
    timeout: { type: Boolean, default: true },
    kick: { type: Boolean, default: true },
    ban: { type: Boolean, default: true },
    appealHint: { type: String, default: null },
  },
  { versionKey: false, collection: 'case_dm_settings' },
);

export const DmSettingsModel =
  mongoose.models.CaseDmSettings ?? mongoose.model<DmSettingsRow>('CaseDmSettings', dmSettingsSchema);

/** The case DM settings of `guild`: every action on and the default appeal hint when never set. */
export async function getDmSettings(guild: string): Promise<Settings> {
  const row = await DmSettingsModel.findById(guild).lean<DmSettingsRow>();
  const { _id, ...fields } = row ?? { _id: guild, warn: true, timeout: true, kick: true, ban: true, appealHint: null };
  return { guild, ...fields };
}

/** Stores the case DM settings of `guild` (all fields replaced) and returns them. */
export async function putDmSettings(guild: string, body: Omit<Settings, 'guild'>): Promise<Settings> {
  await DmSettingsModel.updateOne({ _id: guild }, { $set: body }, { upsert: true });
  return getDmSettings(guild);
}
