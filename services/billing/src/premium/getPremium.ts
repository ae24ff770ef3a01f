import type { Entitlement, EntitlementHistoryEntry, PremiumGrant } from '@guildhall/shared';
import type { z } from 'zod';
import { type BillingContext, leewayMs } from '../config';
import { GrantModel, HistoryModel } from './model';
import { summarize } from './summarize';

/** The dashboard's view of a guild's premium (the `Premium` schema). */
export interface PremiumView {
  entitlement: z.infer<typeof Entitlement>;
  grants: z.infer<typeof PremiumGrant>[];
  history: z.infer<typeof EntitlementHistoryEntry>[];
}

/**
 * `guild`'s premium computed now from its grants (so it is exact even between expiry-poller runs): summary, every
 * grant newest first with its effective window and status, and the last 50 history entries newest first.
 */
export async function getPremium(ctx: BillingContext, guild: string): Promise<PremiumView> {
  const [grants, history] = await Promise.all([
    GrantModel.find({ guild }).lean(),
    HistoryModel.find({ guild }).sort({ at: -1, _id: -1 }).limit(50).lean(),
  ]);
  const { windows, summary } = summarize(grants, new Date(), leewayMs(ctx));
  const updated = grants.reduce<Date | null>((max, g) => (!max || g.updatedAt > max ? g.updatedAt : max), null);
  return {
    entitlement: {
      guild,
      premium: summary.premium,
      status: summary.status,
      until: summary.until?.toISOString() ?? null,
      sources: summary.sources,
      updatedAt: updated?.toISOString() ?? null,
    },
    grants: [...grants]
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((g) => {
        const w = windows.get(g._id)!;
        return {
          id: g._id,
          source: g.source,
          ref: g.ref,
          status: w.status,
          startsAt: w.startsAt.toISOString(),
          expiresAt: w.endsAt?.toISOString() ?? null,
          createdAt: g.createdAt.toISOString(),
          updatedAt: g.updatedAt.toISOString(),
        };
      }),
    history: history.map((h) => ({
      at: h.at.toISOString(),
      change: h.change,
      source: h.source,
      ref: h.ref,
      status: h.status,
      expiresAt: h.expiresAt?.toISOString() ?? null,
      reason: h.reason,
    })),
  };
}
