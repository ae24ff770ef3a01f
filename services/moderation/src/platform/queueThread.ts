import { type Logger, platformFailure, type REST, Routes } from '@guildhall/shared';
import { type APIThreadChannel, ChannelType, ThreadAutoArchiveDuration } from 'discord-api-types/v10';

/**
 * Opens a public thread named `name` (cut to the platform's 100 characters) in the queue text channel `channel`
 * and posts `content` in it (no pings), for staff to discuss one appeal or report. Returns the thread id, or null
 * when the platform refuses (logged; the appeal/report is still stored and listed on the dashboard).
 */
export async function openQueueThread(
  platform: REST,
  logger: Logger,
  channel: string,
  name: string,
  content: string,
): Promise<string | null> {
  try {
    const thread = (await platform.post(Routes.threads(channel), {
      body: {
        name: name.slice(0, 100),
        type: ChannelType.PublicThread,
        auto_archive_duration: ThreadAutoArchiveDuration.OneWeek,
      },
    })) as APIThreadChannel;
    await platform.post(Routes.channelMessages(thread.id), {
      body: { content: content.slice(0, 2000), allowed_mentions: { parse: [] } },
    });
    return thread.id;
  } catch (err) {
    logger.warn({ channel, failure: platformFailure(err) }, 'could not open a queue thread');
    return null;
  }
}
