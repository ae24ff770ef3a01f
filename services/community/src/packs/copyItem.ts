import { HttpProblem, platformFailure, snowflakeTime } from '@guildhall/shared';
import type { APIEmoji, APISticker } from 'discord-api-types/v10';
import type { CommunityContext } from '../config';
import { itemImageUrl, rememberGuildItem } from './guildItems';
import { type PackItem, type PendingCopy, SubscriptionModel, type SubscriptionRow } from './model';

const MIME: Record<string, string> = { png: 'image/png', gif: 'image/gif', json: 'application/json' };

/** How far a platform's clock may run behind ours when matching a copy to its pending marker, in milliseconds. */
const CLOCK_SKEW_MS = 5_000;

async function readImage(ctx: CommunityContext, item: PackItem): Promise<{ bytes: Buffer; ext: string; url: string }> {
  const url = itemImageUrl(ctx.config.PLATFORM_CDN_URL, item);
  const ext = url.slice(url.lastIndexOf('.') + 1);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    throw new HttpProblem(
      502,
      `Could not read the image of ${item.name} (${item.id}) from ${url}: ${(err as Error).message}`,
    );
  }
  if (!response.ok)
    throw new HttpProblem(
      502,
      `Could not read the image of ${item.name} (${item.id}) from ${url}: HTTP ${response.status}`,
    );
  return { bytes: Buffer.from(await response.arrayBuffer()), ext, url };
}

async function createCopy(
  ctx: CommunityContext,
  guild: string,
  item: PackItem,
  reason: string,
): Promise<APIEmoji | APISticker> {
  const image = await readImage(ctx, item);
  if (item.kind === 'sticker') {
    const source = await ctx.platform.guilds.getSticker(item.guild, item.id);
    const created = await ctx.platform.guilds.createSticker(
      guild,
      {
        name: item.name,
        tags: source.tags || item.name,
        description: source.description ?? '',
        file: { name: `${item.name}.${image.ext}`, data: image.bytes, contentType: MIME[image.ext] },
      },
      { reason },
    );
    await rememberGuildItem(guild, created, 'sticker');
    return created;
  }
  const created = await ctx.platform.guilds.createEmoji(
    guild,
    { name: item.name, image: `data:${MIME[image.ext]};base64,${image.bytes.toString('base64')}`, roles: [] },
    { reason },
  );
  await rememberGuildItem(guild, created, 'emoji');
  return created;
}

/**
 * The copy a run that died after the platform call left unrecorded: an emoji/sticker of the guild on the platform
 * with the item's name, created (by its snowflake's time) after the pending marker was written, and not recorded as
 * a copy of another item. Null when the platform has none (the call never reached it).
 */
async function findUnrecordedCopy(
  ctx: CommunityContext,
  sub: SubscriptionRow,
  item: PackItem,
  pending: PendingCopy,
): Promise<string | null> {
  const list: Array<APIEmoji | APISticker> =
    item.kind === 'sticker'
      ? await ctx.platform.guilds.getStickers(sub.guild)
      : await ctx.platform.guilds.getEmojis(sub.guild);
  const recorded = new Set(sub.copies.map((c) => c.id));
  const since = new Date(pending.at).getTime() - CLOCK_SKEW_MS;
  const found = list.find(
    (e) => e.id && e.name === item.name && !recorded.has(e.id) && snowflakeTime(e.id).getTime() >= since,
  );
  return found?.id ?? null;
}

/**
 * Copies pack item `item` into the guild of subscription `subId` on the platform (audit-log `reason`, written with
 * `onBehalfReason` by the job), at most once ever: `held` when the
 * subscription already records a copy; otherwise a pending marker is stored before the platform call and replaced
 * by the copy's record after it (or cleared when the platform answered with a refusal), and a marker left by a run
 * that died in between is resolved by finding that copy on
 * the platform (see `findUnrecordedCopy`) before creating anything. `gone` when the subscription no longer exists.
 * Platform refusals are thrown as the REST client's errors; an unreadable image as a 502 `HttpProblem`.
 */
export async function copyItem(
  ctx: CommunityContext,
  subId: string,
  item: PackItem,
  reason: string,
): Promise<'held' | 'copied' | 'gone'> {
  const sub = await SubscriptionModel.findById(subId).lean<SubscriptionRow>();
  if (!sub) return 'gone';
  if (sub.copies.some((c) => c.item === item.id)) return 'held';
  const record = (id: string) =>
    SubscriptionModel.updateOne({ _id: subId }, { $push: { copies: { item: item.id, id } }, $set: { pending: null } });
  if (sub.pending?.item === item.id) {
    const found = await findUnrecordedCopy(ctx, sub, item, sub.pending);
    if (found) {
      await record(found);
      return 'copied';
    }
  }
  await SubscriptionModel.updateOne({ _id: subId }, { $set: { pending: { item: item.id, at: new Date() } } });
  let created: APIEmoji | APISticker;
  try {
    created = await createCopy(ctx, sub.guild, item, reason);
  } catch (err) {
    // Image unreadable or a 4xx refusal: nothing was created. A lost call or a 5xx may have created it: keep the marker.
    const status = platformFailure(err).status;
    if (err instanceof HttpProblem || (status >= 400 && status < 500))
      await SubscriptionModel.updateOne({ _id: subId }, { $set: { pending: null } });
    throw err;
  }
  await record(created.id as string);
  return 'copied';
}
