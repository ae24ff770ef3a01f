import type { Outbox, PlatformApi } from '@guildhall/shared';
import { caseLeases, historyEntry, PENDING_CASES, UNANNOUNCED_CASES } from './model';
import { settleCase } from './settleCase';

/** Cases settled per run at most. */
const BATCH = 50;

/**
 * One recovery run: claims each case a request left unsettled (status `pending`, or `announced: false`: its
 * `case.created` not emitted yet) whose lease has lapsed (the request holds its case's lease, renewed while its
 * platform call runs, so only a request that died lets it lapse; a case stored before leases has none) and settles
 * it as the request would have (`settleCase`, resumed: a ban or timeout already in effect on the platform is not
 * performed again; a kick whose member is gone counts as done; `case.created` keyed by the case, so it is emitted
 * once whoever settles). Claims are atomic, so replicas never settle a case twice. Returns how many it settled.
 */
export async function resumePendingCases(platform: PlatformApi, outbox: Outbox<'moderation'>): Promise<number> {
  let settled = 0;
  const abandoned = [
    { filter: { status: 'pending' }, hint: PENDING_CASES },
    { filter: { announced: false }, hint: UNANNOUNCED_CASES },
  ];
  for (const { filter, hint } of abandoned) {
    for (; settled < BATCH; settled++) {
      const claimed = await caseLeases.claim(filter, {
        update: { $push: { history: historyEntry('resumed') } },
        sort: { createdAt: 1 },
        hint,
      });
      if (!claimed) break;
      await settleCase(platform, outbox, claimed.row, claimed.lease, true);
    }
  }
  return settled;
}
