import {
  badRequest,
  isPlatformNotFound,
  type ModerationSettings,
  type PlatformApi,
  platformProblem,
  settingsChanges,
} from '@guildhall/shared';
import { type APIChannel, ChannelType } from 'discord-api-types/v10';
import type { z } from 'zod';
import type { ModerationContext } from '../config';
import { defaultSettings, SettingsModel, type SettingsRow } from './model';
import { publishSettingsChanges, type SettingsActor } from './publishChanges';

type Settings = z.infer<typeof ModerationSettings>;

/** The API shape of stored settings. */
export function toSettings(row: SettingsRow): Settings {
  return { guild: row._id, appealsChannel: row.appealsChannel, reportsChannel: row.reportsChannel };
}

async function checkQueueChannel(platform: PlatformApi, guild: string, field: string, channel: string | null) {
  if (channel === null) return;
  let found: APIChannel;
  try {
    found = await platform.channels.get(channel);
  } catch (err) {
    if (isPlatformNotFound(err))
      throw badRequest(`Invalid body.${field}: unknown channel`, [
        { field: `body.${field}`, message: 'unknown channel' },
      ]);
    throw platformProblem(err, 'read the channel');
  }
  const inGuild = 'guild_id' in found && found.guild_id === guild;
  if (!inGuild || found.type !== ChannelType.GuildText) {
    throw badRequest(`Invalid body.${field}: must be a text channel of this guild`, [
      { field: `body.${field}`, message: 'must be a text channel of this guild' },
    ]);
  }
}

/**
 * Sets the appeals and reports queue channels of `guild` (null turns a queue off) for `actor` after checking on the
 * platform that each is a text channel of the guild (400 otherwise; 502 when the platform refuses the lookup), and
 * publishes `settings.updated` naming `actor` with the fields whose value changed (compared with the settings this
 * write replaced, read by the same atomic update). Answers the settings as stored.
 */
export async function putSettings(
  ctx: Pick<ModerationContext, 'platform' | 'outbox'>,
  guild: string,
  body: { appealsChannel: string | null; reportsChannel: string | null },
  actor: SettingsActor,
): Promise<Settings> {
  await checkQueueChannel(ctx.platform, guild, 'appealsChannel', body.appealsChannel);
  await checkQueueChannel(ctx.platform, guild, 'reportsChannel', body.reportsChannel);
  const set = { appealsChannel: body.appealsChannel, reportsChannel: body.reportsChannel };
  const replaced = await SettingsModel.findOneAndUpdate(
    { _id: guild },
    { $set: set },
    { upsert: true, returnDocument: 'before' },
  ).lean<SettingsRow>();
  const before = replaced ?? defaultSettings(guild);
  const after: SettingsRow = { ...before, ...set };
  await publishSettingsChanges(
    ctx.outbox,
    guild,
    settingsChanges(before, after, ['appealsChannel', 'reportsChannel']),
    actor,
  );
  return toSettings(after);
}
