import { HttpProblem, platformFailure, platformProblem } from '@guildhall/shared';
import type { APIEmoji, APISticker } from 'discord-api-types/v10';
import type { CommunityContext } from '../config';
import { itemImageUrl, rememberGuildItem } from './guildItems';
import { type ItemKind, type PackItem, SubscriptionModel, type SubscriptionRow } from './model';

/** The platform's codes for "maximum number of emojis / stickers reached". */
const SLOTS_FULL = new Set([30008, 30039]);

const MIME: Record<string, string> = { png: 'image/png', gif: 'image/gif', json: 'application/json' };

/** What a copy run did: items copied now, and items left out because the platform said the slots were full. */
export interface CopyOutcome {
  copied: number;
  leftOut: PackItem[];
}

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
 * Copies the pack items `sub` does not hold yet into its guild on the platform, in pack order, recording each copy
 * on the subscription as soon as it exists (a restart or failure never copies an item twice). When the platform
 * answers that a kind's slots are full, items of that kind are left out and reported; any other refusal throws 502
 * (copies made so far stay recorded).
 */
export async function copyItems(
  ctx: CommunityContext,
  sub: SubscriptionRow,
  items: PackItem[],
  packName: string,
): Promise<CopyOutcome> {
  const held = new Set(sub.copies.map((c) => c.item));
  const full = new Set<ItemKind>();
  const outcome: CopyOutcome = { copied: 0, leftOut: [] };
  for (const item of items) {
    if (held.has(item.id)) continue;
    if (full.has(item.kind)) {
      outcome.leftOut.push(item);
      continue;
    }
    try {
      const created = await createCopy(ctx, sub.guild, item, `Guildhall: pack ${packName}`);
      await SubscriptionModel.updateOne({ _id: sub._id }, { $push: { copies: { item: item.id, id: created.id } } });
      outcome.copied++;
    } catch (err) {
      if (err instanceof HttpProblem) throw err;
      const failure = platformFailure(err);
      if (failure.status === 400 && SLOTS_FULL.has(failure.code)) {
        full.add(item.kind);
        outcome.leftOut.push(item);
        continue;
      }
      throw platformProblem(err, `copy ${item.name} into the guild`);
    }
  }
  return outcome;
}
