import { type Logger, type Outbox, platformFailure, type REST } from '@guildhall/shared';
import { auditReason } from '../platform/auditReason';
import { forgetPerson } from '../platform/personCache';
import { liftAction } from './liftAction';
import { CaseModel, type CaseRow, DUE_CASES, historyEntry } from './model';
import { toCase } from './toCase';

/** How long a replica holds a due case while it lifts it, in milliseconds (a crashed replica's claim lapses). */
const LEASE_MS = 120_000;
/** Lower bound of the due-time range: keeps cases without an expiry (null) out of the index scan. */
const EPOCH = new Date(0);
/** Cases handled per run at most. */
const BATCH = 100;

/**
 * One expiry run: claims each `active` case whose `expiresAt` has passed (atomic claim, so replicas never act
 * twice), lifts temporary bans on the platform (timeouts end on the platform by themselves), marks the case
 * `expired` and emits `case.expired`. A ban the platform refuses to lift stays `active` and is retried after the
 * claim lapses. Due times live in MongoDB, so nothing is lost across restarts.
 */
export async function expireCases(platform: REST, outbox: Outbox, logger: Logger): Promise<void> {
  for (let i = 0; i < BATCH; i++) {
    const now = new Date();
    const lease = new Date(now.getTime() + LEASE_MS);
    const row = await CaseModel.findOneAndUpdate(
      {
        status: 'active',
        expiresAt: { $gte: EPOCH, $lte: now },
        $or: [{ busyUntil: null }, { busyUntil: { $lt: now } }],
      },
      { $set: { busyUntil: lease } },
      { returnDocument: 'after', sort: { expiresAt: 1 }, hint: DUE_CASES },
    ).lean<CaseRow>();
    if (!row) return;
    try {
      await liftAction(platform, row, auditReason(row, { id: row.moderator, name: row.moderatorName }, 'Expired'));
      forgetPerson(row.guild, row.target);
    } catch (err) {
      logger.warn({ case: row._id, failure: platformFailure(err) }, 'could not lift an expired case; will retry');
      continue;
    }
    const expired = await CaseModel.findOneAndUpdate(
      { _id: row._id, busyUntil: lease },
      { $set: { status: 'expired', busyUntil: null }, $push: { history: historyEntry('expired') } },
      { returnDocument: 'after' },
    ).lean<CaseRow>();
    if (expired) await outbox.emit(expired.guild, 'case.expired', { case: toCase(expired) });
  }
}
