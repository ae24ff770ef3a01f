import {
  badRequest,
  isPlatformNotFound,
  type ModerationSettings,
  type PlatformApi,
  platformProblem,
} from '@guildhall/shared';
import { type APIChannel, ChannelType } from 'discord-api-types/v10';
import type { z } from 'zod';
import { SettingsModel, type SettingsRow } from './model';

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
 * Sets the appeals and reports queue channels of `guild` (null turns a queue off) after checking on the platform
 * that each is a text channel of the guild (400 otherwise; 502 when the platform refuses the lookup).
 */
export async function putSettings(
  platform: PlatformApi,
  guild: string,
  body: { appealsChannel: string | null; reportsChannel: string | null },
): Promise<Settings> {
  await checkQueueChannel(platform, guild, 'appealsChannel', body.appealsChannel);
  await checkQueueChannel(platform, guild, 'reportsChannel', body.reportsChannel);
  const row = await SettingsModel.findOneAndUpdate(
    { _id: guild },
    { $set: { appealsChannel: body.appealsChannel, reportsChannel: body.reportsChannel } },
    { upsert: true, returnDocument: 'after' },
  ).lean<SettingsRow>();
  return toSettings(row!);
}
