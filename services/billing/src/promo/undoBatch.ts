import { conflict, type Identity, notFound } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { getBatch } from './getBatch';
import { staffRef } from './memberRef';
import { PromoBatchModel, PromoCodeModel } from './model';
import { revokePromoGrant } from './revokePromoGrant';

/**
 * Undoes batch `batchId`: marks it undone (atomic; 409 when it already was, 404 unknown), so none of its codes
 * can be redeemed, then withdraws the premium of every code already redeemed (each guild gets
 * `entitlement.changed`). Redemptions racing the undo re-check the batch after granting and withdraw themselves.
 */
export async function undoBatch(ctx: BillingContext, batchId: string, reason: string, identity: Identity) {
  const batch = await PromoBatchModel.findOneAndUpdate(
    { _id: batchId, undone: false },
    { $set: { undone: true, undoneAt: new Date(), undoneBy: staffRef(identity), undoReason: reason } },
    { returnDocument: 'after' },
  ).lean();
  if (!batch) {
    if (!(await PromoBatchModel.exists({ _id: batchId }))) throw notFound(`No promo batch ${batchId}`);
    throw conflict('This batch is already undone');
  }
  const used = await PromoCodeModel.find({ batch: batchId, usedAt: { $ne: null } }).lean();
  const why = `batch undone by ${identity.username || identity.name}${reason ? `: ${reason}` : ''}`;
  for (const code of used) await revokePromoGrant(ctx, code._id, why);
  return getBatch(batchId);
}
