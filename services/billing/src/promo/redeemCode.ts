import { randomUUID } from 'node:crypto';
import { conflict, type Identity, notFound } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { getPremium } from '../premium/getPremium';
import { GrantModel } from '../premium/model';
import { recordHistory } from '../premium/recordHistory';
import { refreshEntitlement } from '../premium/refreshEntitlement';
import { normalizeCode } from './codes';
import { memberRef } from './memberRef';
import { PromoBatchModel, PromoCodeModel, type PromoCodeRow } from './model';
import { revokePromoGrant } from './revokePromoGrant';
import { toPromoCode } from './toPromo';

async function redeemable(code: string): Promise<{ row: PromoCodeRow; days: number }> {
  const row = await PromoCodeModel.findById(code).lean();
  const batch = row ? await PromoBatchModel.findById(row.batch).lean() : null;
  if (!row || !batch) throw notFound('No such promo code');
  if (batch.undone) throw conflict('This promo code’s batch was withdrawn');
  if (row.revoked) throw conflict('This promo code was revoked');
  if (row.usedAt) throw conflict('This promo code was already used');
  if (batch.redeemBy.getTime() < Date.now())
    throw conflict('This promo code can no longer be redeemed (redeem_by passed)');
  return { row, days: batch.days };
}

/**
 * Redeems promo code `input` for `guild` by the caller. Checks (404 unknown; 409 batch undone, code revoked,
 * already used, or past `redeem_by`), then claims the code with one conditional update (`usedAt: null`,
 * not revoked), so of concurrent redemptions exactly one wins and the others get 409. The winner gets a promo
 * grant of the batch's `days`, queued after the guild's other promo days; history and `entitlement.changed`
 * follow. A batch undo or code revoke racing this is re-checked after granting, and withdraws the grant.
 */
export async function redeemCode(ctx: BillingContext, guild: string, input: string, identity: Identity) {
  const code = normalizeCode(input);
  const { row, days } = await redeemable(code);
  const now = new Date();
  const claimed = await PromoCodeModel.findOneAndUpdate(
    { _id: code, usedAt: null, revoked: false },
    { $set: { usedAt: now, usedBy: memberRef(identity), usedByUser: identity.sub, usedGuild: guild } },
    { returnDocument: 'after' },
  ).lean();
  if (!claimed) throw conflict('This promo code was already used');
  await GrantModel.create({
    _id: randomUUID(),
    guild,
    source: 'promo',
    ref: code,
    status: 'active',
    startsAt: now,
    expiresAt: null,
    days,
    batch: row.batch,
    customer: null,
    eventAt: now,
    createdAt: now,
    updatedAt: now,
  });
  const reason = `code redeemed by ${identity.name} (${days} days)`;
  await recordHistory({
    _id: `redeem:${code}`,
    guild,
    at: now,
    change: 'redeem',
    source: 'promo',
    ref: code,
    status: 'active',
    expiresAt: null,
    reason,
  });
  await refreshEntitlement(ctx, guild, { change: 'redeem', source: 'promo', ref: code, reason });
  const [batch, after] = await Promise.all([
    PromoBatchModel.findById(row.batch).lean(),
    PromoCodeModel.findById(code).lean(),
  ]);
  if (batch?.undone || after?.revoked) await revokePromoGrant(ctx, code, 'withdrawn while being redeemed');
  return { code: toPromoCode(after ?? claimed), premium: await getPremium(ctx, guild) };
}
