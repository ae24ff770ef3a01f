import {
  isPlatformNotFound,
  type Lease,
  type Logger,
  type PlatformApi,
  platformFailure,
  postOnce,
} from '@guildhall/shared';
import type { APIEmbed, RESTPostAPIChannelMessageJSONBody } from 'discord-api-types/v10';
import { type EventRow, JournalEventModel } from '../journal/model';
import { embedLength, eventEmbed, MAX_EMBED_CHARS_PER_MESSAGE, MAX_EMBEDS_PER_MESSAGE } from './embeds';
import { type PostRow, postLeases } from './model';

/** Attempts before a post that keeps failing is given up (recorded in `error`). */
const MAX_ATTEMPTS = 5;
/** Rows handled per flush run. */
const BATCH = 500;

/**
 * Posts due log embeds: claims due rows, groups them per channel, and sends each group as messages of up to 10
 * embeds (and at most 6000 embed characters), oldest first. The REST client queues per rate-limit bucket and waits
 * out 429s. A channel that is gone or not accessible (404/403) is given up at once; other failures are retried. Each
 * message carries a nonce made of its rows' ids (enforced), so a group posted again (a retry after a lost answer, or
 * another replica taking over the batch of one that died before recording the post) is not posted twice.
 */
export async function flushPosts(platform: PlatformApi, logger: Logger): Promise<void> {
  const { rows: mine, lease } = await postLeases.claimMany({ postedAt: null, dueAt: { $lte: new Date() } }, BATCH, {
    dueAt: 1,
  });
  if (!mine.length) return;
  const events = new Map(
    (await JournalEventModel.find({ _id: { $in: mine.map((r) => r._id) } }).lean<EventRow[]>()).map((e) => [e._id, e]),
  );
  const byChannel = new Map<string, PostRow[]>();
  for (const row of mine) byChannel.set(row.channel, [...(byChannel.get(row.channel) ?? []), row]);
  for (const [channel, rows] of byChannel) {
    for (const group of groupEmbeds(rows, events)) {
      // Rate limits may stretch a run: keep the batch claimed, and stop if another flusher took it over.
      if (!(await postLeases.renew(lease))) return;
      await postGroup(platform, logger, channel, group, lease);
    }
  }
}

function groupEmbeds(rows: PostRow[], events: Map<string, EventRow>): Array<Array<{ row: PostRow; embed: APIEmbed }>> {
  const groups: Array<Array<{ row: PostRow; embed: APIEmbed }>> = [];
  let current: Array<{ row: PostRow; embed: APIEmbed }> = [];
  let chars = 0;
  for (const row of rows) {
    const event = events.get(row._id);
    if (!event) continue;
    const embed = eventEmbed(event);
    const length = embedLength(embed);
    if (current.length >= MAX_EMBEDS_PER_MESSAGE || chars + length > MAX_EMBED_CHARS_PER_MESSAGE) {
      groups.push(current);
      current = [];
      chars = 0;
    }
    current.push({ row, embed });
    chars += length;
  }
  if (current.length) groups.push(current);
  return groups;
}

async function postGroup(
  platform: PlatformApi,
  logger: Logger,
  channel: string,
  group: Array<{ row: PostRow; embed: APIEmbed }>,
  lease: Lease,
): Promise<void> {
  const ids = group.map((g) => g.row._id);
  const body: RESTPostAPIChannelMessageJSONBody = {
    embeds: group.map((g) => g.embed),
    allowed_mentions: { parse: [] },
    ...postOnce(`log-post:${ids.join(',')}`),
  };
  try {
    const message = await platform.channels.createMessage(channel, body);
    await postLeases.releaseMany(ids, lease, { $set: { postedAt: new Date(), message: message.id } });
  } catch (err) {
    const failure = platformFailure(err);
    const giveUp =
      isPlatformNotFound(err) || failure.status === 403 || group.every((g) => g.row.attempts + 1 >= MAX_ATTEMPTS);
    logger.warn({ channel, failure, giveUp }, 'posting log embeds failed');
    await postLeases.releaseMany(
      ids,
      lease,
      giveUp
        ? { $set: { postedAt: new Date(), error: `${failure.status} ${failure.code} ${failure.message}` } }
        : { $inc: { attempts: 1 } },
    );
  }
}
