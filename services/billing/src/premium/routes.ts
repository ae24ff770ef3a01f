import { billingRoutes, bind, type RouteBinding } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { createLink } from './createLink';
import { getPremium } from './getPremium';

/** The dashboard's premium endpoints (entitlement read, store links). */
export function premiumRoutes(ctx: BillingContext): RouteBinding[] {
  return [
    bind(billingRoutes.getPremium, async ({ params }) => getPremium(ctx, params.guild)),
    bind(billingRoutes.createPremiumLink, async ({ params, body, identity }) => ({
      link: await createLink(ctx, params.guild, body.provider, body.purchaseToken, identity),
    })),
  ];
}
