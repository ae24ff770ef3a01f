import type { ExportSource } from '@guildhall/shared';
import type { BillingContext } from './config';
import { getPremium } from './premium/getPremium';

/** Billing's part of a guild export: `premium`, the premium view of `GET …/premium` (entitlement, grants, history). */
export function billingExport(ctx: BillingContext): ExportSource {
  return async function* (guild) {
    yield { type: 'premium', data: { ...(await getPremium(ctx, guild)) } };
  };
}
