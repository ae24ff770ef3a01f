import { GuildItemModel, type ItemKind } from './model';

/** Emoji slots per boost tier (0-3), for static and for animated emoji each. */
const EMOJI_LIMITS = [50, 100, 150, 250];
/** Sticker slots per boost tier (0-3). */
const STICKER_LIMITS = [5, 15, 30, 60];

/** One item kind's slots in a guild. */
export interface Slot {
  kind: ItemKind;
  used: number;
  limit: number;
}

/** Slots of a guild per item kind: `used` from its stored items (integration-managed emoji excluded), `limit` from its boost tier. */
export async function guildSlots(guild: string, premiumTier: number): Promise<Slot[]> {
  const items = await GuildItemModel.find({ guild, managed: false }, { kind: 1 }).lean();
  const used = (kind: ItemKind) => items.filter((i) => i.kind === kind).length;
  const tier = Math.max(0, Math.min(3, premiumTier));
  return [
    { kind: 'emoji', used: used('emoji'), limit: EMOJI_LIMITS[tier] ?? 50 },
    { kind: 'animated_emoji', used: used('animated_emoji'), limit: EMOJI_LIMITS[tier] ?? 50 },
    { kind: 'sticker', used: used('sticker'), limit: STICKER_LIMITS[tier] ?? 5 },
  ];
}
