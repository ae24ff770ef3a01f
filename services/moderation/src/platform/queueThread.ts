import {
  cutCodePoints,
  type Logger,
  type PlatformApi,
  platformFailure,
  postOnce,
  TEXT_LIMITS,
} from '@guildhall/shared';
import { ChannelType, ThreadAutoArchiveDuration } from 'discord-api-types/v10';

/** One appeal or report to discuss in a queue thread. */
export interface QueueItem {
  guild: string;
  /** The queue text channel the thread opens in. */
  channel: string;
  /** The appeal's or report's id (24 hex characters): its last 8 make the thread's name unique. */
  record: string;
  /** What the thread is called (cut so that the reference fits in the platform's 100 characters). */
  title: string;
  /** The first post in the thread (no pings). */
  content: string;
}

/** The name of `item`'s thread: its title, then ` · ref <last 8 characters of the record id>`. */
export function queueThreadName(item: Pick<QueueItem, 'record' | 'title'>): string {
  const ref = ` · ref ${item.record.slice(-8)}`;
  return cutCodePoints(item.title, TEXT_LIMITS.channelName - ref.length) + ref;
}

/**
 * Opens a public thread for `item` in its queue channel and posts `item.content` in it, for staff to discuss one
 * appeal or report. Returns the thread id, or null when the platform refuses to create it (logged; the appeal/report
 * is still stored and listed on the dashboard); a refused post is logged and the thread kept. `resumed`: an earlier
 * run for the same record may have died after the platform created its thread but before the id was stored, so the
 * thread is first looked for among the guild's active threads (`GET /guilds/{guild}/threads/active`) by its name,
 * unique per record, and created only when absent: a retry never opens a second thread. The post is made once per
 * thread (`postOnce`): a retry after a lost answer does not post it twice.
 */
export async function openQueueThread(
  platform: PlatformApi,
  logger: Logger,
  item: QueueItem,
  resumed = false,
): Promise<string | null> {
  const name = queueThreadName(item);
  let thread: string;
  try {
    thread =
      (resumed && (await activeThreadNamed(platform, item, name))) ||
      (
        await platform.channels.createThread(item.channel, {
          name,
          type: ChannelType.PublicThread,
          auto_archive_duration: ThreadAutoArchiveDuration.OneWeek,
        })
      ).id;
  } catch (err) {
    logger.warn({ channel: item.channel, failure: platformFailure(err) }, 'could not open a queue thread');
    return null;
  }
  try {
    await platform.channels.createMessage(thread, {
      content: cutCodePoints(item.content, TEXT_LIMITS.content, '…'),
      allowed_mentions: { parse: [] },
      ...postOnce(`queue-thread:${thread}`),
    });
  } catch (err) {
    logger.warn({ thread, failure: platformFailure(err) }, 'could not post in a queue thread');
  }
  return thread;
}

/** The id of the active thread of `item`'s queue channel called `name`, if the platform lists one. */
async function activeThreadNamed(platform: PlatformApi, item: QueueItem, name: string): Promise<string | null> {
  const { threads } = await platform.guilds.getActiveThreads(item.guild);
  return threads.find((t) => 'parent_id' in t && t.parent_id === item.channel && t.name === name)?.id ?? null;
}
