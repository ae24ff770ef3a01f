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
  if (revoked && lifter.by && lifter.byName !== null) {
    await outbox.emit(guild, 'case.revoked', {
      case: toCase(revoked),
      revokedBy: lifter.by,
      revokedByName: lifter.byName,
      appeal: null,
    });
  }
  return revoked;
}
