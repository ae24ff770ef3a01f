import { billingRoutes, bind, type RouteBinding } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { createBatch } from './createBatch';
import { getBatch } from './getBatch';
import { redeemCode } from './redeemCode';
import { revokeCode } from './revokeCode';
import { undoBatch } from './undoBatch';

/** Staff promo endpoints and the member-side redemption. */
export function promoRoutes(ctx: BillingContext): RouteBinding[] {
  return [
    bind(billingRoutes.getPromoBatch, async ({ params }) => getBatch(params.batch_id)),
    bind(billingRoutes.createPromoBatch, async ({ body, identity }) =>
      createBatch(
        { note: body.note, days: body.days, count: body.count, redeemBy: new Date(body.redeem_by) },
        identity,
      ),
    ),
    bind(billingRoutes.undoPromoBatch, async ({ params, body, identity }) =>
      undoBatch(ctx, params.batch_id, body?.reason ?? '', identity),
    ),
    bind(billingRoutes.revokePromoCode, async ({ params, identity }) =>
      revokeCode(ctx, params.batch_id, params.code, identity),
    ),
    bind(billingRoutes.redeemPromoCode, async ({ params, body, identity }) =>
      redeemCode(ctx, params.guild, body.code, identity),
    ),
  ];
}
