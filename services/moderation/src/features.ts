import type { FeaturesReply, FeaturesRequest } from '@guildhall/shared';
import { getSettings } from './settings/model';

/**
 * Moderation's setup features for `RPC.features('moderation')`: `cases` is always on (nothing to set up);
 * `appeals` and `reports` work from the dashboard without a queue channel (`partial`) and are `on` once their
 * queue channel is set (each appeal/report then gets a thread there).
 */
export async function moderationFeatures(request: FeaturesRequest): Promise<FeaturesReply> {
  const settings = await getSettings(request.guild);
  return {
    features: [
      { feature: 'cases', state: 'on', note: 'Warn, timeout, kick and ban with numbered cases; nothing to set up.' },
      settings.appealsChannel
        ? { feature: 'appeals', state: 'on', note: `Appeals get a thread in <#${settings.appealsChannel}>.` }
        : {
            feature: 'appeals',
            state: 'partial',
            note: 'No appeals queue channel: appeals are on the dashboard only.',
          },
      settings.reportsChannel
        ? { feature: 'reports', state: 'on', note: `Reports get a thread in <#${settings.reportsChannel}>.` }
        : {
            feature: 'reports',
            state: 'partial',
            note: 'No reports queue channel: reports are on the dashboard only.',
          },
    ],
  };
}
