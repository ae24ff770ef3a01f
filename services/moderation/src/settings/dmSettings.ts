import { type CaseDmSettings, type Outbox, settingsChanges } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';
import { publishSettingsChanges, type SettingsActor } from './publishChanges';

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

/** The case DM fields a write replaces (each journaled as `caseDm.<field>`). */
const DM_FIELDS = ['warn', 'timeout', 'kick', 'ban', 'appealHint'] as const;

/** The case DM settings of a guild that never set them: every action on, the default appeal hint. */
function defaultDmSettings(guild: string): DmSettingsRow {
  return { _id: guild, warn: true, timeout: true, kick: true, ban: true, appealHint: null };
}

function toDmSettings({ _id, ...fields }: DmSettingsRow): Settings {
  return { guild: _id, ...fields };
}

/** The case DM settings of `guild`: every action on and the default appeal hint when never set. */
export async function getDmSettings(guild: string): Promise<Settings> {
  const row = await DmSettingsModel.findById(guild).lean<DmSettingsRow>();
  return toDmSettings(row ?? defaultDmSettings(guild));
}

/**
 * Stores the case DM settings of `guild` for `actor` (all fields replaced), publishes `settings.updated` naming
 * `actor` with the fields whose value changed (`caseDm.<field>`, compared with the settings this write replaced,
 * read by the same atomic update; nothing when none did) and returns the settings as stored.
 */
export async function putDmSettings(
  outbox: Outbox<'moderation'>,
  guild: string,
  body: Omit<Settings, 'guild'>,
  actor: SettingsActor,
): Promise<Settings> {
  const set = Object.fromEntries(DM_FIELDS.map((field) => [field, body[field]])) as Omit<DmSettingsRow, '_id'>;
  const replaced = await DmSettingsModel.findOneAndUpdate(
    { _id: guild },
    { $set: set },
    { upsert: true, returnDocument: 'before' },
  ).lean<DmSettingsRow>();
  const before = replaced ?? defaultDmSettings(guild);
  const after: DmSettingsRow = { ...before, ...set };
  const changes = settingsChanges(before, after, DM_FIELDS).map((c) => ({ ...c, field: `caseDm.${c.field}` }));
  await publishSettingsChanges(outbox, guild, changes, actor);
  return toDmSettings(after);
}
