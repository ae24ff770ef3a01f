import type { LogSettings } from '@guildhall/shared';
import type { z } from 'zod';
import type { SettingsRow } from './model';

/** Stored settings -> the `LogSettings` API shape. */
export function toLogSettings(row: SettingsRow): z.infer<typeof LogSettings> {
  return {
    guild: row._id,
    messagesChannel: row.messagesChannel,
    membersChannel: row.membersChannel,
    moderationChannel: row.moderationChannel,
    serverChannel: row.serverChannel,
    ignoredChannels: row.ignoredChannels,
    ignoreBots: row.ignoreBots,
  };
}
