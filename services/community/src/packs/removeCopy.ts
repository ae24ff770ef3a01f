import { isPlatformNotFound } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { forgetGuildItem } from './guildItems';
import { GuildItemModel, type ItemKind, PackModel, SubscriptionModel, type SubscriptionRow } from './model';

/** The kind of copy `id` of `sub`: from the guild's mirrored items, else from the pack item it copies; null if unknown. */
async function copyKind(sub: SubscriptionRow, id: string): Promise<ItemKind | null> {
  const mirrored = await GuildItemModel.findById(`${sub.guild}:${id}`, { kind: 1 }).lean();
  if (mirrored) return mirrored.kind;
  const original = sub.copies.find((c) => c.id === id)?.item;
  const pack = await PackModel.findById(sub.pack, { items: 1 }).lean();
  return pack?.items.find((i) => i.id === original)?.kind ?? null;
}

async function deleteOnPlatform(
  ctx: CommunityContext,
  guild: string,
  id: string,
  kind: 'sticker' | 'emoji',
  reason: string,
): Promise<boolean> {
  try {
    if (kind === 'sticker') await ctx.platform.guilds.deleteSticker(guild, id, { reason });
    else await ctx.platform.guilds.deleteEmoji(guild, id, { reason });
    return true;
  } catch (err) {
    if (isPlatformNotFound(err)) return false;
    throw err;
  }
}

/**
 * Deletes copy `id` of subscription `subId` from its guild on the platform (a copy already gone counts as deleted),
 * then forgets it and drops it from the subscription's copies. The kind comes from the mirrored items or the pack
 * (the mirror may lag behind the platform's dispatches); when neither knows it, the emoji and then the sticker route
 * are tried. Idempotent: a copy no longer recorded on the subscription is left alone. Platform refusals other than
 * 404 are thrown as the REST client's errors.
 */
export async function removeCopy(
  ctx: CommunityContext,
  guild: string,
  subId: string,
  id: string,
  reason: string,
): Promise<void> {
  const sub = await SubscriptionModel.findOne({ _id: subId, 'copies.id': id }).lean<SubscriptionRow>();
  if (!sub) return;
  const kind = await copyKind(sub, id);
  if (kind === 'sticker') await deleteOnPlatform(ctx, guild, id, 'sticker', reason);
  else if (kind) await deleteOnPlatform(ctx, guild, id, 'emoji', reason);
  else if (!(await deleteOnPlatform(ctx, guild, id, 'emoji', reason)))
    await deleteOnPlatform(ctx, guild, id, 'sticker', reason);
  await forgetGuildItem(guild, id);
  await SubscriptionModel.updateOne({ _id: subId }, { $pull: { copies: { id } } });
}
