import { ChannelType } from 'discord-api-types/v10';
import type { SettingsRow } from '../settings/model';
import { type ChannelDirectory, THREAD_TYPES } from './channelFacts';

/** What the message log's privacy rules need: channel facts and the service's bot user (owner of ticket threads). */
export interface LogPolicy {
  directory: ChannelDirectory;
  botUserId: string | null;
}

/**
 * Whether a message (or bulk delete) in `channel` is stored, journaled and posted by the message log:
 * - ignore rules cover the channel itself, a thread's parent channel, and the category of either;
 * - private threads are logged only when the guild opted in (`logPrivateThreads`);
 * - ticket threads (private threads the service's bot created; tickets keep their own transcript) never are;
 * - bot and webhook messages not when `ignoreBots` (pass `bot: false` for a bulk delete).
 * A channel neither the snapshots nor the platform know is judged by its own id only.
 */
export async function isLogged(
  { directory, botUserId }: LogPolicy,
  settings: SettingsRow,
  channel: string,
  bot: boolean,
): Promise<boolean> {
  if (bot && settings.ignoreBots) return false;
  const ignored = new Set(settings.ignoredChannels);
  if (ignored.has(channel)) return false;
  const facts = await directory.get(settings._id, channel);
  if (!facts) return true;
  if (facts.type === ChannelType.PrivateThread) {
    if (botUserId && facts.owner === botUserId) return false;
    if (!settings.logPrivateThreads) return false;
  }
  let parent = facts.parent;
  if (parent && THREAD_TYPES.has(facts.type)) {
    if (ignored.has(parent)) return false;
    parent = (await directory.get(settings._id, parent))?.parent ?? null;
  }
  return !(parent && ignored.has(parent));
}
