import { conflict, type Identity, notFound, type PromoCode } from '@guildhall/shared';
import type { z } from 'zod';
import type { BillingContext } from '../config';
import { normalizeCode } from './codes';
import { staffRef } from './memberRef';
import { PromoCodeModel } from './model';
import { revokePromoGrant } from './revokePromoGrant';
import { toPromoCode } from './toPromo';

/**
 * Revokes `code` of batch `batchId` (atomic: only a not-yet-revoked code changes): never redeemable again, and
 * the premium it granted (if redeemed) is withdrawn. 404 unknown code in that batch; 409 already revoked.
 */
export async function revokeCode(
  ctx: BillingContext,
  batchId: string,
  input: string,
  identity: Identity,
): Promise<z.infer<typeof PromoCode>> {
  const code = normalizeCode(input);
  const row = await PromoCodeModel.findOneAndUpdate(
    { _id: code, batch: batchId, revoked: false },
    { $set: { revoked: true, revokedAt: new Date(), revokedBy: staffRef(identity) } },
    { returnDocument: 'after' },
  ).lean();
  if (!row) {
    const exists = await PromoCodeModel.exists({ _id: code, batch: batchId });
    if (!exists) throw notFound(`No code ${input} in batch ${batchId}`);
    throw conflict('This code is already revoked');
  }
  await revokePromoGrant(ctx, code, `code revoked by ${identity.username || identity.name}`);
  return toPromoCode(row);
}
