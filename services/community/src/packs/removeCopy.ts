import { isPlatformNotFound } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { forgetGuildItem } from './guildItems';
import { GuildItemModel, SubscriptionModel } from './model';

/**
 * Deletes copy `id` of subscription `subId` from its guild on the platform (a copy already gone counts as deleted),
 * then forgets it and drops it from the subscription's copies. Idempotent: a copy no longer recorded is left alone.
 * Returns the copy's name; platform refusals (other than 404) are thrown as the REST client's errors.
 */
export async function removeCopy(
  ctx: CommunityContext,
  guild: string,
  subId: string,
  id: string,
  reason: string,
): Promise<string> {
  const item = await GuildItemModel.findById(`${guild}:${id}`).lean();
  const held = await SubscriptionModel.exists({ _id: subId, 'copies.id': id });
  if (item && held) {
    try {
      if (item.kind === 'sticker') await ctx.platform.guilds.deleteSticker(guild, id, { reason });
      else await ctx.platform.guilds.deleteEmoji(guild, id, { reason });
    } catch (err) {
      if (!isPlatformNotFound(err)) throw err;
    }
    await forgetGuildItem(guild, id);
  }
  await SubscriptionModel.updateOne({ _id: subId }, { $pull: { copies: { id } } });
  return item?.name ?? id;
}
