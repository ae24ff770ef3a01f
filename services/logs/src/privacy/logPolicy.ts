import type { BotUser } from '@guildhall/shared';
import { ChannelType } from 'discord-api-types/v10';
import type { SettingsRow } from '../settings/model';
import { type ChannelDirectory, THREAD_TYPES } from './channelFacts';

/** What the message log's privacy rules need: channel facts and the service's bot user (owner of ticket threads). */
export interface LogPolicy {
  directory: ChannelDirectory;
  botUser: BotUser;
}

/**
 * Whether a message (or bulk delete) in `channel` is stored, journaled and posted by the message log:
 * - ignore rules cover the channel itself, a thread's parent channel, and the category of either;
 * - private threads are logged only when the guild opted in (`logPrivateThreads`);
 * - ticket threads (private threads the service's bot created; tickets keep their own transcript) never are;
 * - bot and webhook messages not when `ignoreBots` (pass `bot: false` for a bulk delete);
 * - a channel the platform says does not exist (or is in another guild) is not: its privacy cannot be told.
 * Never decided on unknown facts: throws `HttpProblem` 503 while the channel's facts cannot be fetched
 * (`ChannelDirectory.get`), and waits for the bot's user id (`BotUser.id`), so the caller's message is retried.
 */
export async function isLogged(
  { directory, botUser }: LogPolicy,
  settings: SettingsRow,
  channel: string,
  bot: boolean,
): Promise<boolean> {
  if (bot && settings.ignoreBots) return false;
  const ignored = new Set(settings.ignoredChannels);
  if (ignored.has(channel)) return false;
  const facts = await directory.get(settings._id, channel);
  if (!facts) return false;
  if (facts.type === ChannelType.PrivateThread) {
    if (facts.owner === (await botUser.id())) return false;
    if (!settings.logPrivateThreads) return false;
  }
  let parent = facts.parent;
  if (parent && THREAD_TYPES.has(facts.type)) {
    if (ignored.has(parent)) return false;
    parent = (await directory.get(settings._id, parent))?.parent ?? null;
  }
  return !(parent && ignored.has(parent));
}
