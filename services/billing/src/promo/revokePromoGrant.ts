import type { BillingContext } from '../config';
import { GrantModel } from '../premium/model';
import { recordHistory } from '../premium/recordHistory';
import { refreshEntitlement } from '../premium/refreshEntitlement';

/**
 * Withdraws the premium granted by promo `code` (if it was redeemed): its grant becomes `revoked`, history
 * records why, and the guild's entitlement is refreshed. No-op when there is no grant or it is revoked already.
 */
export async function revokePromoGrant(ctx: BillingContext, code: string, reason: string): Promise<void> {
  const now = new Date();
  const grant = await GrantModel.findOneAndUpdate(
    { source: 'promo', ref: code, status: { $ne: 'revoked' } },
    { $set: { status: 'revoked', updatedAt: now, eventAt: now } },
    { returnDocument: 'after' },
  ).lean();
  if (!grant) return;
  await recordHistory({
    _id: `revoke:${grant._id}`,
    guild: grant.guild,
    at: now,
    change: 'revoke',
    source: 'promo',
    ref: code,
    status: 'revoked',
    expiresAt: null,
    reason,
  });
  await refreshEntitlement(ctx, grant.guild, { change: 'revoke', source: 'promo', ref: code, reason });
}
