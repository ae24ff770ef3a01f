import { type BillingContext, leewayMs } from '../config';
import { EntitlementModel, GrantModel } from './model';
import { recordHistory } from './recordHistory';
import { refreshEntitlement } from './refreshEntitlement';
import { summarize } from './summarize';

/**
 * Poller job: refreshes every guild whose summary may have changed by itself (`checkAt` passed: a promo ran out,
 * a subscription period ended without renewal, a queued promo started). Records an `expiry` history entry for
 * each grant whose access ended (idempotent per grant and end time). Safe with several replicas: the refresh is
 * version-guarded, so one `entitlement.changed` is published per change.
 */
export async function expireEntitlements(ctx: BillingContext): Promise<void> {
  const due = await EntitlementModel.find({ checkAt: { $lte: new Date() } })
    .limit(200)
    .lean();
  for (const row of due) {
    const grants = await GrantModel.find({ guild: row._id }).lean();
    const now = new Date();
    const { windows } = summarize(grants, now, leewayMs(ctx));
    const ended = grants
      .map((g) => ({ g, w: windows.get(g._id)! }))
      .filter(
        ({ w }) => w.status === 'expired' && w.accessEndsAt && w.accessEndsAt <= now && w.accessEndsAt > row.updatedAt,
      )
      .sort((a, b) => b.w.accessEndsAt!.getTime() - a.w.accessEndsAt!.getTime());
    for (const { g, w } of ended) {
      await recordHistory({
        _id: `expiry:${g._id}:${w.accessEndsAt!.toISOString()}`,
        guild: row._id,
        at: w.accessEndsAt!,
        change: 'expiry',
        source: g.source,
        ref: g.ref,
        status: 'expired',
        expiresAt: w.endsAt,
        reason: g.source === 'promo' ? 'promo days used up' : 'subscription period ended without renewal',
      });
    }
    const last = ended[0];
    await refreshEntitlement(ctx, row._id, {
      change: last ? 'expiry' : 'update',
      source: last?.g.source ?? 'promo',
      ref: last?.g.ref ?? '',
      reason: last ? 'access period ended' : 'scheduled premium started',
    });
  }
}
