import {
  cutCodePoints,
  type Logger,
  type PlatformApi,
  platformFailure,
  postOnce,
  TEXT_LIMITS,
} from '@guildhall/shared';
import { ChannelType, ThreadAutoArchiveDuration } from 'discord-api-types/v10';

/**
 * Opens a public thread named `name` (cut to the platform's 100 characters) in the queue text channel `channel`
 * and posts `content` in it (no pings), for staff to discuss one appeal or report. Returns the thread id, or null
 * when the platform refuses (logged; the appeal/report is still stored and listed on the dashboard). The post is made
 * once per thread (`postOnce`): a retry after a lost answer does not post it twice.
 */
export async function openQueueThread(
  platform: PlatformApi,
  logger: Logger,
  channel: string,
  name: string,
  content: string,
): Promise<string | null> {
  try {
    const thread = await platform.channels.createThread(channel, {
      name: cutCodePoints(name, TEXT_LIMITS.channelName),
      type: ChannelType.PublicThread,
      auto_archive_duration: ThreadAutoArchiveDuration.OneWeek,
    });
    await platform.channels.createMessage(thread.id, {
      content: cutCodePoints(content, TEXT_LIMITS.content, '…'),
      allowed_mentions: { parse: [] },
      ...postOnce(`queue-thread:${thread.id}`),
    });
    return thread.id;
  } catch (err) {
    logger.warn({ channel, failure: platformFailure(err) }, 'could not open a queue thread');
    return null;
  }
}
