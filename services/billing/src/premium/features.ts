import type { FeaturesReply, FeaturesRequest } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { getPremium } from './getPremium';

/**
 * Answers `RPC.features('billing')`: feature `premium`, `on` while a grant gives the guild access now, else `off`;
 * the note says until when and from which sources.
 */
export async function premiumFeatures(ctx: BillingContext, req: FeaturesRequest): Promise<FeaturesReply> {
  const { entitlement } = await getPremium(ctx, req.guild);
  if (!entitlement.premium) {
    const note = entitlement.status === 'none' ? 'No premium' : `Premium ${entitlement.status}`;
    return { features: [{ feature: 'premium', state: 'off', note }] };
  }
  const until = entitlement.until ? `until ${entitlement.until}` : 'with no end date';
  const note = `Premium ${entitlement.status} ${until} (${entitlement.sources.join(', ')})`;
  return { features: [{ feature: 'premium', state: 'on', note }] };
}
