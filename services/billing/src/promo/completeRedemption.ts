import { randomUUID } from 'node:crypto';
import { isDuplicateKey } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { GrantModel } from '../premium/model';
import { recordHistory } from '../premium/recordHistory';
import { refreshEntitlement } from '../premium/refreshEntitlement';
import { PromoBatchModel, PromoCodeModel, type PromoCodeRow } from './model';
import { revokePromoGrant } from './revokePromoGrant';

/** A claimed code: `usedAt`, `usedBy` and `usedGuild` are set by the claim. */
type ClaimedCode = PromoCodeRow & { usedAt: Date; usedGuild: string };

/**
 * Writes what redeeming claimed code `row` grants, every step idempotent and keyed by the code, so the request, its
 * redeemer's retry and the recovery poller (`resumeRedemptions`) may each run it after the others died, and the code
 * gives one grant whoever finishes: the promo grant of the batch's `days` for `row.usedGuild` starting at `row.usedAt`
 * (inserted once: grants are unique by source and ref), the `redeem:<code>` history entry and the entitlement refresh
 * (`entitlement.changed`). A batch undo or code revoke that raced the redemption is re-checked last and withdraws the
 * grant. Throws when MongoDB does (the code stays `pending` for the next run). Reads the batch from MongoDB.
 */
export async function completeRedemption(ctx: BillingContext, row: ClaimedCode): Promise<void> {
  const batch = await PromoBatchModel.findById(row.batch).lean();
  const days = batch?.days ?? 0;
  const at = row.usedAt;
  await GrantModel.create({
    _id: randomUUID(),
    guild: row.usedGuild,
    source: 'promo',
    ref: row._id,
    status: 'active',
    startsAt: at,
    expiresAt: null,
    days,
    batch: row.batch,
    customer: null,
    eventAt: at,
    createdAt: at,
    updatedAt: at,
  }).catch((err) => {
    if (!isDuplicateKey(err)) throw err;
  });
  const reason = `code redeemed by ${row.usedBy?.name ?? 'a member'} (${days} days)`;
  await recordHistory({
    _id: `redeem:${row._id}`,
    guild: row.usedGuild,
    at,
    change: 'redeem',
    source: 'promo',
    ref: row._id,
    status: 'active',
    expiresAt: null,
    reason,
  });
  await refreshEntitlement(ctx, row.usedGuild, { change: 'redeem', source: 'promo', ref: row._id, reason });
  const [undone, after] = await Promise.all([
    PromoBatchModel.findById(row.batch).lean(),
    PromoCodeModel.findById(row._id).lean(),
  ]);
  if (!batch || undone?.undone || after?.revoked)
    await revokePromoGrant(ctx, row._id, 'withdrawn while being redeemed');
}
