import type { Outbox, PlatformApi } from '@guildhall/shared';
import { settleCase } from './createCase';
import { caseLeases, historyEntry, PENDING_CASES } from './model';

/** A case still `pending` this long after it was stored was abandoned by a request that died (ms). */
export const ABANDONED_AFTER_MS = 60_000;
/** Cases settled per run at most. */
const BATCH = 50;

/**
 * One recovery run: claims each case left `pending` for longer than `ABANDONED_AFTER_MS` (the process died between
 * storing the case and settling it), performs its action on the platform again (ban and timeout are idempotent
 * there; a kick whose member is gone counts as done) and settles it `active` or `failed`, emitting `case.created`
 * as the original request would have. Claims are atomic, so replicas never settle a case twice.
 */
export async function resumePendingCases(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  now = Date.now(),
): Promise<number> {
  let settled = 0;
  for (; settled < BATCH; settled++) {
    const claimed = await caseLeases.claim(
      { status: 'pending', createdAt: { $lte: new Date(now - ABANDONED_AFTER_MS) } },
      { update: { $push: { history: historyEntry('resumed') } }, sort: { createdAt: 1 }, hint: PENDING_CASES },
    );
    if (!claimed) break;
    await settleCase(platform, outbox, claimed.row);
  }
  return settled;
}
