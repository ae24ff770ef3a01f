import type { Outbox, REST } from '@guildhall/shared';
import { settleCase } from './createCase';
import { CaseModel, type CaseRow, historyEntry, PENDING_CASES } from './model';

/** A case still `pending` this long after it was stored was abandoned by a request that died (ms). */
export const ABANDONED_AFTER_MS = 60_000;
/** How long a replica holds an abandoned case while it settles it (ms); a crashed replica's claim lapses. */
const LEASE_MS = 120_000;
/** Cases settled per run at most. */
const BATCH = 50;

/**
 * One recovery run: claims each case left `pending` for longer than `ABANDONED_AFTER_MS` (the process died between
 * storing the case and settling it), performs its action on the platform again (ban and timeout are idempotent
 * there; a kick whose member is gone counts as done) and settles it `active` or `failed`, emitting `case.created`
 * as the original request would have. Claims are atomic, so replicas never settle a case twice.
 */
export async function resumePendingCases(platform: REST, outbox: Outbox, now = Date.now()): Promise<number> {
  let settled = 0;
  for (; settled < BATCH; settled++) {
    const at = new Date(now);
    const row = await CaseModel.findOneAndUpdate(
      {
        status: 'pending',
        createdAt: { $lte: new Date(now - ABANDONED_AFTER_MS) },
        $or: [{ busyUntil: null }, { busyUntil: { $lt: at } }],
      },
      { $set: { busyUntil: new Date(now + LEASE_MS) }, $push: { history: historyEntry('resumed') } },
      { returnDocument: 'after', sort: { createdAt: 1 }, hint: PENDING_CASES },
    ).lean<CaseRow>();
    if (!row) break;
    await settleCase(platform, outbox, row);
  }
  return settled;
}
