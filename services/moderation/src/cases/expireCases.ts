import { type Logger, type Outbox, type PlatformApi, platformFailure } from '@guildhall/shared';
import { auditReason } from '../platform/auditReason';
import { forgetPerson } from '../platform/personCache';
import { recordChanged } from '../record/recordCache';
import { liftAction } from './liftAction';
import { newerCaseOf } from './liveCase';
import { caseLeases, DUE_CASES, historyEntry } from './model';
import { toCase } from './toCase';

/** Lower bound of the due-time range: keeps cases without an expiry (null) out of the index scan. */
const EPOCH = new Date(0);
/** Cases handled per run at most. */
const BATCH = 100;

/**
 * One expiry run: claims each `active` case whose `expiresAt` has passed (atomic claim, so replicas never act
 * twice). When it is the member's live timeout/ban, it is lifted on the platform (a temporary ban removed, a timeout
 * cleared, audit reason `[for <case moderator>] Expired: Case #N by ...`), marked `expired` and `case.expired` is
 * emitted. A newer case of the same member and action holding the effect (`active`) means it is not live: it lifts
 * nothing and becomes `superseded`. A newer case still `pending` (its platform call may be running), or a lift the
 * platform refuses, leaves it `active` to be retried after the claim lapses (2 minutes). Due times live in MongoDB,
 * so nothing is lost across restarts.
 */
export async function expireCases(platform: PlatformApi, outbox: Outbox<'moderation'>, logger: Logger): Promise<void> {
  for (let i = 0; i < BATCH; i++) {
    const claimed = await caseLeases.claim(
      { status: 'active', expiresAt: { $gte: EPOCH, $lte: new Date() } },
      { sort: { expiresAt: 1 }, hint: DUE_CASES },
    );
    if (!claimed) return;
    const { row, lease } = claimed;
    const newer = await newerCaseOf(row);
    if (newer?.status === 'pending') continue;
    if (newer) {
      await caseLeases.release(row._id, lease, {
        $set: { status: 'superseded', supersededBy: newer.number },
        $push: {
          history: historyEntry('superseded', {
            by: newer.moderator,
            byName: newer.moderatorName,
            note: `superseded by case #${newer.number}; lifted nothing when it expired`,
          }),
        },
      });
      continue;
    }
    try {
      await liftAction(platform, row, auditReason(row, { id: row.moderator, name: row.moderatorName }, 'Expired'));
      forgetPerson(row.guild, row.target);
    } catch (err) {
      logger.warn({ case: row._id, failure: platformFailure(err) }, 'could not lift an expired case; will retry');
      continue;
    }
    const expired = await caseLeases.release(row._id, lease, {
      $set: { status: 'expired' },
      $push: { history: historyEntry('expired') },
    });
    if (!expired) continue;
    await outbox.emit(expired.guild, 'case.expired', { case: toCase(expired) });
    recordChanged(outbox.bus, expired.guild, expired.target);
  }
}
