import type { CommunityContext } from '../config';
import { SubscriptionModel, type SubscriptionRow } from './model';
import { removeCopy } from './removeCopy';

/**
 * Deletes the copy of pack item `item` (an original id) that subscription `subId` made in guild `guild` (see
 * `removeCopy`). The item itself, in the guild that contributed it, is only forgotten by the subscription, never
 * deleted. Nothing to do when the subscription holds no copy of it or is gone.
 */
export async function removeItemCopy(
  ctx: CommunityContext,
  guild: string,
  subId: string,
  item: string,
  reason: string,
): Promise<void> {
  const sub = await SubscriptionModel.findOne({ _id: subId, 'copies.item': item }).lean<SubscriptionRow>();
  const copy = sub?.copies.find((c) => c.item === item);
  if (!copy) return;
  if (copy.id === item) await SubscriptionModel.updateOne({ _id: subId }, { $pull: { copies: { id: item } } });
  else await removeCopy(ctx, guild, subId, copy.id, reason);
}
