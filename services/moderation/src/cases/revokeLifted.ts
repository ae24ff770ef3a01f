import { leaseFree, type Outbox, type PlatformApi } from '@guildhall/shared';
import type { AuditLift } from '../platform/auditLift';
import { findPerson } from '../platform/people';
import { recordChanged } from '../record/recordCache';
import { CaseModel, type CaseRow, historyEntry } from './model';
import { toCase } from './toCase';

/**
 * Who lifted a ban or timeout outside a revoke (null when the platform did not say) and how; `key` names the message
 * that told it (a dispatch's or event's message id, an audit entry's id), so a redelivery of it is recognised.
 */
export interface Lifter {
  by: string | null;
  byName: string | null;
  how: string;
  key: string;
}

/**
 * A ban or timeout of `target` was lifted without a revoke (a journal undo, or an unban on the platform): the newest
 * `active` case of that action becomes `revoked` with who and how (history note), so it stops counting toward the
 * suggestion. A case another request is changing (its lease is held: a revoke or an expiry lifting it itself) is left
 * alone. Emits `case.revoked` when who is known. Returns the revoked case, or null when none was active.
 * Redelivered (the process died after the case was revoked, before its event was stored): the case this lift already
 * changed (`lifts` holds `lifter.key`) is returned and its event emitted again under the same key (stored once),
 * instead of revoking an older active case of the same action.
 */
export async function revokeLifted(
  outbox: Outbox<'moderation'>,
  guild: string,
  target: string,
  action: 'ban' | 'timeout',
  lifter: Lifter,
): Promise<CaseRow | null> {
  const changed = await CaseModel.findOne({ guild, target, action, lifts: lifter.key }).lean<CaseRow>();
  if (changed) {
    await emitRevoked(outbox, changed);
    return changed;
  }
  const now = new Date();
  const revoked = await CaseModel.findOneAndUpdate(
    { guild, target, action, status: 'active', ...leaseFree(now) },
    {
      $set: { status: 'revoked', revokedBy: lifter.by, revokedByName: lifter.byName, revokedAt: now },
      $push: { history: historyEntry('revoked', { by: lifter.by, byName: lifter.byName, note: lifter.how }) },
      $addToSet: { lifts: lifter.key },
    },
    { sort: { number: -1 }, returnDocument: 'after' },
  ).lean<CaseRow>();
  if (revoked) await emitRevoked(outbox, revoked);
  return revoked;
}

/**
 * Drops the target's member records (`recordChanged`), then emits `case.revoked` of a case revoked outside a revoke
 * once its revoker is known (nothing while unknown), keyed by the case: a redelivered lift emits it once.
 */
async function emitRevoked(outbox: Outbox<'moderation'>, row: CaseRow): Promise<void> {
  recordChanged(outbox.bus, row.guild, row.target);
  if (!row.revokedBy || row.revokedByName === null) return;
  await outbox.emit(
    row.guild,
    'case.revoked',
    { case: toCase(row), revokedBy: row.revokedBy, revokedByName: row.revokedByName, appeal: null },
    `case.revoked:${row._id}`,
  );
}

/** How long after a lift without a known lifter (GUILD_BAN_REMOVE) its audit-log entry may still name who did it (ms). */
const NAME_WINDOW_MS = 10 * 60_000;

/**
 * The platform's audit log names who lifted a ban or timeout of `target` (a MEMBER_BAN_REMOVE entry, or a MEMBER_UPDATE
 * clearing `communication_disabled_until`, by someone other than the bot). The newest `active` case of that action is
 * revoked by them (`revokeLifted`); when the lift's own dispatch already revoked it without knowing who (within the last
 * 10 minutes), that case gets its revoker and a `revoker` history entry. Either way `case.revoked` is emitted once who
 * is known (a redelivered entry finds its case again, see `revokeLifted`). Returns the case, or null when none matched.
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
      $addToSet: { lifts: lifter.key },
    },
    { sort: { number: -1 }, returnDocument: 'after' },
  ).lean<CaseRow>();
  if (named) await emitRevoked(outbox, named);
  return named;
}

/**
 * A person lifted a ban or timeout in the platform's client, as audit-log entry `lift.entry` tells it (`liftOf`): their
 * name is looked up on the platform (nickname, display name or username; their id when the platform no longer knows
 * them) and the case is revoked or named by them (`nameLifter`), keyed `audit:<entry id>`, so the entry's dispatch and
 * an unban dispatch that read the same entry (`settlePlatformUnban`) change one case once. Returns that case, or null.
 * Throws a 502 problem when the platform refuses the look-up (the message is delivered again).
 */
export async function nameAuditLifter(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  lift: AuditLift,
): Promise<CaseRow | null> {
  const person = await findPerson(platform, lift.guild, lift.by);
  return nameLifter(outbox, lift.guild, lift.target, lift.action, {
    by: lift.by,
    byName: person?.name ?? lift.by,
    how: lift.how,
    key: `audit:${lift.entry}`,
  });
}
