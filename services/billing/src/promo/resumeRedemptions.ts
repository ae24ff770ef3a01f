import type { BillingContext } from '../config';
import { completeRedemption } from './completeRedemption';
import { promoCodeLeases } from './model';

/** Redemptions completed per run at most. */
const BATCH = 50;

/**
 * One recovery run: claims each promo code a redemption left `pending` whose lease has lapsed (the request holds it
 * while it writes, so only a request that died lets it lapse) and completes it as the request would have
 * (`completeRedemption`: the grant, its history and `entitlement.changed`, each once whoever finishes), then clears
 * `pending` with the lease. Claims are atomic, so replicas never complete a code twice at once. A code whose completion
 * throws stays `pending` and is taken again once its lease lapses. Returns how many it completed.
 */
export async function resumeRedemptions(ctx: BillingContext): Promise<number> {
  let done = 0;
  for (; done < BATCH; done++) {
    const claimed = await promoCodeLeases.claim({ pending: true }, { sort: { usedAt: 1 } });
    if (!claimed) break;
    const { row, lease } = claimed;
    if (!row.usedAt || !row.usedGuild) {
      await promoCodeLeases.release(row._id, lease, { $set: { pending: false } });
      continue;
    }
    await completeRedemption(ctx, { ...row, usedAt: row.usedAt, usedGuild: row.usedGuild });
    await promoCodeLeases.release(row._id, lease, { $set: { pending: false } });
  }
  return done;
}
