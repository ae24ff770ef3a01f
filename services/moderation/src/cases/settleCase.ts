import {
  isPlatformNotFound,
  LEASE_MS,
  type Lease,
  type Outbox,
  type PlatformApi,
  platformFailure,
} from '@guildhall/shared';
import { auditReason } from '../platform/auditReason';
import { forgetPerson } from '../platform/personCache';
import { recordChanged } from '../record/recordCache';
import { applyAction } from './applyAction';
import { sendCaseDm } from './caseDm';
import { newerCaseOf } from './liveCase';
import { CaseModel, type CaseRow, caseLeases, historyEntry } from './model';
import { supersedeOlderCases } from './supersedeCases';
import { toCase } from './toCase';

/** How often a settling case's lease is renewed while its platform work runs (ms): a third of its length. */
const RENEW_MS = LEASE_MS / 3;

/**
 * Settles a stored case under `lease` (the request's own, stored with the case, or the recovery poller's), renewing
 * the lease every 40 s while the work runs:
 * - a `pending` case gets its action performed on the platform and becomes `active`, or `failed` with the platform's
 *   refusal (a kick whose member already left counts as done). When a newer timeout/ban of the member is already
 *   active (a resumed older case), it becomes `superseded` without a platform call. A `resumed` ban or timeout already
 *   in effect on the platform (the dead request's call went through) is not performed again;
 * - once `active`, older active cases of the same member and action are superseded (`supersedeOlderCases`);
 * - the member is told in a DM (`sendCaseDm`): before a kick or ban, after an accepted warn or timeout;
 * - `case.created` is emitted keyed by the case (`case.created:<guild>:<number>`), so a request and a resume emit
 *   it once; the lease is dropped and the case marked `announced`.
 * Returns the case as settled. When the lease was lost (it lapsed and the recovery poller took the case over), the
 * settling is left to the new holder and the case is answered as it stands once it is no longer `pending` (waiting up
 * to 10 s).
 */
export async function settleCase(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  stored: CaseRow,
  lease: Lease,
  resumed = false,
): Promise<CaseRow> {
  let held: Lease | null = lease;
  const renewal = setInterval(() => {
    if (held)
      void caseLeases.renew(held).then(
        (renewed) => (held = renewed),
        () => undefined,
      );
  }, RENEW_MS);
  try {
    let row: CaseRow | null = stored;
    if (row.status === 'pending') {
      row = await performAction(platform, row, lease, resumed);
      forgetPerson(stored.guild, stored.target);
      if (!row) return await caseAsSettled(stored);
    }
    if (row.status === 'active') {
      await supersedeOlderCases(row);
      if (row.action === 'warn' || row.action === 'timeout') await sendCaseDm(platform, row);
    }
    await outbox.emit(
      row.guild,
      'case.created',
      {
        case: toCase(row),
        duration: row.duration,
        deleteMessageSeconds: row.deleteMessageSeconds,
        failure: row.failure,
        origin: row.origin ?? 'service',
      },
      `case.created:${row._id}`,
    );
    recordChanged(outbox.bus, row.guild, row.target);
    return (await caseLeases.release(row._id, lease, { $set: { announced: true } })) ?? row;
  } finally {
    clearInterval(renewal);
  }
}

/** How long a request whose case was taken over waits for the new holder to settle it (ms). */
const TAKEN_OVER_WAIT_MS = 10_000;

/** Case `c` as it stands once it is no longer `pending`, or after 10 s as it stands then (another holder settles it). */
async function caseAsSettled(c: CaseRow): Promise<CaseRow> {
  const deadline = Date.now() + TAKEN_OVER_WAIT_MS;
  for (;;) {
    const row = (await CaseModel.findById(c._id).lean<CaseRow>()) ?? c;
    if (row.status !== 'pending' || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Performs a pending case's action and stores the outcome while `lease` is still held: `active`, `failed` with the
 * platform's refusal, or `superseded` when a newer case of the member holds the effect already. Null when the lease
 * was lost (nothing stored).
 */
async function performAction(
  platform: PlatformApi,
  row: CaseRow,
  lease: Lease,
  resumed: boolean,
): Promise<CaseRow | null> {
  const newer = await newerCaseOf(row);
  if (newer?.status === 'active') {
    return finish(
      row,
      lease,
      { status: 'superseded', supersededBy: newer.number },
      historyEntry('superseded', {
        by: newer.moderator,
        byName: newer.moderatorName,
        note: `superseded by case #${newer.number} before its action was performed`,
      }),
    );
  }
  if (resumed && (await inEffect(platform, row))) {
    return finish(
      row,
      lease,
      { status: 'active' },
      historyEntry('active', { note: 'already in effect on the platform' }),
    );
  }
  if (row.action === 'kick' || row.action === 'ban') await sendCaseDm(platform, row);
  try {
    await applyAction(platform, row, auditReason(row, { id: row.moderator, name: row.moderatorName }));
  } catch (err) {
    if (!(row.action === 'kick' && isPlatformNotFound(err))) {
      const failure = platformFailure(err);
      return finish(row, lease, { status: 'failed', failure }, historyEntry('failed', { failure }));
    }
  }
  return finish(row, lease, { status: 'active' }, historyEntry('active'));
}

/** Stores a pending case's outcome if `lease` still holds it (the lease itself stays until the case is announced). */
function finish(
  row: CaseRow,
  lease: Lease,
  set: Partial<CaseRow>,
  entry: ReturnType<typeof historyEntry>,
): Promise<CaseRow | null> {
  return CaseModel.findOneAndUpdate(
    { _id: row._id, status: 'pending', 'lease.holder': lease.holder },
    { $set: set, $push: { history: entry } },
    { returnDocument: 'after' },
  ).lean<CaseRow>();
}

/**
 * Whether a resumed case's ban or timeout is on the platform already (the dead request's call went through): the
 * target is banned (`GET /guilds/{g}/bans/{u}`), or timed out until the case's `expiresAt` (within a second) or later. False for warn
 * and kick, and when the platform cannot say (the action is then performed again: both are idempotent there).
 */
async function inEffect(platform: PlatformApi, row: CaseRow): Promise<boolean> {
  try {
    if (row.action === 'ban') {
      await platform.guilds.getMemberBan(row.guild, row.target);
      return true;
    }
    if (row.action === 'timeout' && row.expiresAt) {
      const member = await platform.guilds.getMember(row.guild, row.target);
      const until = member.communication_disabled_until;
      return !!until && Date.parse(until) >= row.expiresAt.getTime() - 1000;
    }
  } catch {
    return false;
  }
  return false;
}
