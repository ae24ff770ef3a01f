import { forbidden, notFound } from '@guildhall/shared';
import { PackModel, type PackRow, SubscriptionModel, subscriptionId } from './model';

/**
 * The pack `packId`, when `guild` may change its items: the owner guild or a subscribed guild with `contributes`.
 * 404 unknown pack; 403 otherwise.
 */
export async function packForContributor(guild: string, packId: string): Promise<PackRow> {
  const pack = await PackModel.findById(packId).lean<PackRow>();
  if (!pack) throw notFound(`Pack ${packId} not found`);
  if (pack.owner === guild) return pack;
  const sub = await SubscriptionModel.findById(subscriptionId(guild, packId)).lean();
  if (!sub?.contributes) throw forbidden('Only the owner guild or a contributing guild may change this pack');
  return pack;
}
