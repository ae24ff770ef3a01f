import { leaseFree, type Outbox } from '@guildhall/shared';
import { CaseModel, type CaseRow, historyEntry } from './model';
import { toCase } from './toCase';

/** Who lifted a ban or timeout outside a revoke (null when the platform did not say) and how. */
export interface Lifter {
  by: string | null;
  byName: string | null;
  how: string;
}

/**
 * A ban or timeout of `target` was lifted without a revoke (a journal undo, or an unban on the platform): the newest
 * `active` case of that action becomes `revoked` with who and how (history note), so it stops counting toward the
 * suggestion. A case another request is changing (its lease is held: a revoke or an expiry lifting it itself) is left
 * alone. Emits `case.revoked` when who is known. Returns the revoked case, or null when none was active.
 */
export async function revokeLifted(
  outbox: Outbox<'moderation'>,
  guild: string,
  target: string,
  action: 'ban' | 'timeout',
  lifter: Lifter,
): Promise<CaseRow | null> {
  const now = new Date();
  const revoked = await CaseModel.findOneAndUpdate(
    { guild, target, action, status: 'active', ...leaseFree(now) },
    {
      $set: { status: 'revoked', revokedBy: lifter.by, revokedByName: lifter.byName, revokedAt: now },
      $push: { history: historyEntry('revoked', { by: lifter.by, byName: lifter.byName, note: lifter.how }) },
    },
    { sort: { number: -1 }, returnDocument: 'after' },
  ).lean<CaseRow>();
  if (revoked && lifter.by && lifter.byName !== null) await emitRevoked(outbox, revoked, lifter.by, lifter.byName);
  return revoked;
}

async function emitRevoked(outbox: Outbox<'moderation'>, row: CaseRow, by: string, byName: string): Promise<void> {
  await outbox.emit(row.guild, 'case.revoked', {
    case: toCase(row),
    revokedBy: by,
    revokedByName: byName,
    appeal: null,
  });
}

/** How long after a lift without a known lifter (GUILD_BAN_REMOVE) its audit-log entry may still name who did it (ms). */
const NAME_WINDOW_MS = 10 * 60_000;

/**
 * The platform's audit log names who lifted a ban or timeout of `target` (a MEMBER_BAN_REMOVE entry, or a MEMBER_UPDATE
 * clearing `communication_disabled_until`, by someone other than the bot). The newest `active` case of that action is
 * revoked by them (`revokeLifted`); when the lift's own dispatch already revoked it without knowing who (within the last
 * 10 minutes), that case gets its revoker and a `revoker` history entry. Either way `case.revoked` is emitted once who
 * is known. Returns the case, or null when none matched.
 */
export async function nameLifter(
  outbox: Outbox<'moderation'>,
  guild: string,
  target: string,
  action: 'ban' | 'timeout',
  lifter: Lifter & { by: string; byName: string },
): Promise<CaseRow | null> {
  const revoked = await revokeLifted(outbox, guild, target, action, lifter);
  if (revoked) return revoked;
  const named = await CaseModel.findOneAndUpdate(
    {
      guild,
      target,
      action,
      status: 'revoked',
      revokedBy: null,
      revokedAt: { $gte: new Date(Date.now() - NAME_WINDOW_MS) },
    },
    {
      $set: { revokedBy: lifter.by, revokedByName: lifter.byName },
      $push: { history: historyEntry('revoker', { by: lifter.by, byName: lifter.byName, note: lifter.how }) },
    },
    { sort: { number: -1 }, returnDocument: 'after' },
  ).lean<CaseRow>();
  if (named) await emitRevoked(outbox, named, lifter.by, lifter.byName);
  return named;
}
