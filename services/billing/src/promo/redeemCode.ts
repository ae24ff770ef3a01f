import { conflict, type Identity, notFound } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { getPremium } from '../premium/getPremium';
import { normalizeCode } from './codes';
import { completeRedemption } from './completeRedemption';
import { memberRef } from './memberRef';
import { PromoBatchModel, PromoCodeModel, type PromoCodeRow, promoCodeLeases } from './model';
import { toPromoCode } from './toPromo';

/**
 * The code row when `code` may be redeemed for `guild` by `identity`: unused, or claimed by this same member for
 * this same guild by a redemption that has not finished (`pending`: it died, or still runs), which this request
 * then completes. 404 unknown; 409 batch undone, code revoked, already used, or past `redeem_by`.
 */
async function redeemable(code: string, guild: string, identity: Identity): Promise<PromoCodeRow> {
  const row = await PromoCodeModel.findById(code).lean();
  const batch = row ? await PromoBatchModel.findById(row.batch).lean() : null;
  if (!row || !batch) throw notFound('No such promo code');
  const resumable = row.pending === true && row.usedByUser === identity.sub && row.usedGuild === guild;
  if (resumable) return row;
  if (batch.undone) throw conflict('This promo code’s batch was withdrawn');
  if (row.revoked) throw conflict('This promo code was revoked');
  if (row.usedAt) throw conflict('This promo code was already used');
  if (batch.redeemBy.getTime() < Date.now())
    throw conflict('This promo code can no longer be redeemed (redeem_by passed)');
  return row;
}

/**
 * Redeems promo code `input` for `guild` by the caller. Checks (404 unknown; 409 batch undone, code revoked,
 * already used, or past `redeem_by`), then claims the code with one conditional write (`usedAt: null`, not revoked,
 * marked `pending` under a lease), so of concurrent redemptions exactly one wins and the others get 409. The winner
 * then writes the grant of the batch's `days` (queued after the guild's other promo days), its history and
 * `entitlement.changed` (`completeRedemption`, idempotent and keyed by the code) and clears `pending` with the lease.
 * A redemption that died after the claim is completed by the same member's retry for the same guild (answered as a
 * redemption) or by the recovery poller once the lease lapsed (`resumeRedemptions`): one grant, the code counted
 * once. Answers `{code, premium}` (the code as stored, the guild's premium after it).
 */
export async function redeemCode(ctx: BillingContext, guild: string, input: string, identity: Identity) {
  const code = normalizeCode(input);
  const row = await redeemable(code, guild, identity);
  if (row.pending) {
    await completeRedemption(ctx, { ...row, usedAt: row.usedAt as Date, usedGuild: guild });
    const held = await promoCodeLeases.claim({ _id: code, pending: true });
    if (held) await promoCodeLeases.release(code, held.lease, { $set: { pending: false } });
  } else {
    const claimed = await promoCodeLeases.claim(
      { _id: code, usedAt: null, revoked: false },
      {
        update: {
          $set: {
            usedAt: new Date(),
            usedBy: memberRef(identity),
            usedByUser: identity.sub,
            usedGuild: guild,
            pending: true,
          },
        },
      },
    );
    if (!claimed) throw conflict('This promo code was already used');
    await completeRedemption(ctx, { ...claimed.row, usedAt: claimed.row.usedAt as Date, usedGuild: guild });
    await promoCodeLeases.release(code, claimed.lease, { $set: { pending: false } });
  }
  const after = await PromoCodeModel.findById(code).lean();
  return { code: toPromoCode(after ?? row), premium: await getPremium(ctx, guild) };
}
