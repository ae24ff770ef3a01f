import type { APIEmoji, APISticker } from 'discord-api-types/v10';
import { GuildItemModel, type GuildItemRow, type ItemKind } from './model';

/** Emoji -> stored item (kind `emoji` or `animated_emoji`). */
function fromEmoji(guild: string, emoji: APIEmoji): GuildItemRow | null {
  if (!emoji.id) return null;
  return {
    _id: `${guild}:${emoji.id}`,
    guild,
    id: emoji.id,
    kind: emoji.animated ? 'animated_emoji' : 'emoji',
    name: emoji.name ?? '',
    animated: !!emoji.animated,
    format: null,
    managed: !!emoji.managed,
  };
}

/** Sticker -> stored item (kind `sticker`). */
function fromSticker(guild: string, sticker: APISticker): GuildItemRow {
  return {
    _id: `${guild}:${sticker.id}`,
    guild,
    id: sticker.id,
    kind: 'sticker',
    name: sticker.name,
    animated: sticker.format_type === 2 || sticker.format_type === 4,
    format: sticker.format_type,
    managed: false,
  };
}

/**
 * Replaces the stored emoji (`family: 'emoji'`, static and animated) or stickers of `guild` with the platform's
 * full list (a GUILD_EMOJIS_UPDATE / GUILD_STICKERS_UPDATE dispatch or a guild fetch carries the whole list).
 */
export async function replaceGuildItems(
  guild: string,
  family: 'emoji' | 'sticker',
  list: APIEmoji[] | APISticker[],
): Promise<void> {
  const kinds: ItemKind[] = family === 'emoji' ? ['emoji', 'animated_emoji'] : ['sticker'];
  const docs =
    family === 'emoji'
      ? (list as APIEmoji[]).map((e) => fromEmoji(guild, e)).filter((d): d is GuildItemRow => !!d)
      : (list as APISticker[]).map((s) => fromSticker(guild, s));
  await GuildItemModel.deleteMany({ guild, kind: { $in: kinds }, id: { $nin: docs.map((d) => d.id) } });
  if (docs.length === 0) return;
  await GuildItemModel.bulkWrite(
    docs.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })),
    { ordered: false },
  );
}

/** Stores one item just created on the platform by the service (before its dispatch arrives). */
export async function rememberGuildItem(guild: string, item: APIEmoji | APISticker, family: 'emoji' | 'sticker') {
  const doc = family === 'emoji' ? fromEmoji(guild, item as APIEmoji) : fromSticker(guild, item as APISticker);
  if (doc) await GuildItemModel.replaceOne({ _id: doc._id }, doc, { upsert: true });
}

/** Forgets one item deleted by the service. */
export async function forgetGuildItem(guild: string, id: string): Promise<void> {
  await GuildItemModel.deleteOne({ _id: `${guild}:${id}` });
}

/** The CDN URL of an item's image (`base`: PLATFORM_CDN_URL). Stickers: png (PNG/APNG), gif (GIF), json (Lottie). */
export function itemImageUrl(
  base: string,
  item: { id: string; kind: ItemKind; animated: boolean; format: number | null },
) {
  const root = base.replace(/\/+$/, '');
  if (item.kind === 'sticker') {
    const ext = item.format === 4 ? 'gif' : item.format === 3 ? 'json' : 'png';
    return `${root}/stickers/${item.id}.${ext}`;
  }
  return `${root}/emojis/${item.id}.${item.animated ? 'gif' : 'png'}`;
}
