import {
  type Appeal,
  assertHierarchy,
  conflict,
  forbidden,
  HttpProblem,
  type Identity,
  notFound,
  type Outbox,
  onBehalfReason,
  type PlatformApi,
  platformProblem,
} from '@guildhall/shared';
import type { z } from 'zod';
import type { HierarchyPeer } from '../cases/hierarchyPeer';
import { liftAction } from '../cases/liftAction';
import { revokeCase } from '../cases/revokeCase';
import { AppealLockModel, AppealModel, type AppealRow, appealLeases, appealSubject } from './model';
import { toAppeal } from './toAppeal';

export interface DecideAppealInput {
  guild: string;
  id: string;
  decision: 'accepted' | 'denied';
  note: string;
  decider: Pick<Identity, 'sub' | 'name'>;
}

/**
 * Lifts what an accepted appeal was about: its case is revoked like `POST .../revoke` (hierarchy checked, only the
 * member's live case lifts anything on the platform; a case already revoked counts as lifted); an appeal without a
 * case removes the platform ban once the hierarchy allows the decider to act on the member, with the audit reason
 * `[for <decider>] Appeal accepted by ...`. Returns whether a case was revoked.
 */
async function liftAppealed(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  hierarchy: HierarchyPeer,
  row: AppealRow,
  decider: DecideAppealInput['decider'],
) {
  if (row.caseNumber === null) {
    await assertHierarchy(
      hierarchy.bus,
      { guild: row.guild, actor: decider.sub, target: row.member },
      hierarchy.timeoutMs,
    );
    const reason = onBehalfReason({ id: decider.sub }, `Appeal accepted by ${decider.name} (${decider.sub})`);
    try {
      await liftAction(platform, { action: 'ban', guild: row.guild, target: row.member }, reason);
    } catch (err) {
      throw platformProblem(err, 'remove the ban');
    }
    return false;
  }
  try {
    await revokeCase(platform, outbox, hierarchy, row.guild, row.caseNumber, {
      id: decider.sub,
      name: decider.name,
      appeal: row._id,
    });
    return true;
  } catch (err) {
    if (err instanceof HttpProblem && err.code === 'case_already_revoked') return false;
    throw err;
  }
}

/**
 * Decides a pending appeal (404 unknown, 403 `code: self` when it is the decider's own appeal, 409 already decided,
 * being decided or still being filed). `accepted` lifts the case or ban first (403 `code: hierarchy` when the decider
 * is not above the member in the role hierarchy, 503 when that cannot be checked, 502 when the platform refuses: the
 * appeal stays pending); `denied` keeps the case. Frees the appeal's lock, so the member may appeal again later, and
 * emits `appeal.decided`.
 */
export async function decideAppeal(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  hierarchy: HierarchyPeer,
  input: DecideAppealInput,
): Promise<z.infer<typeof Appeal>> {
  const own = await AppealModel.exists({ _id: input.id, guild: input.guild, member: input.decider.sub });
  if (own) throw forbidden('This is your own appeal: someone else must decide it', 'self');
  const claim = await appealLeases.claim({ _id: input.id, guild: input.guild, status: 'pending' });
  if (!claim) {
    const row = await AppealModel.findOne({ _id: input.id, guild: input.guild }).lean<AppealRow>();
    if (!row) throw notFound(`Unknown appeal ${input.id}`, 'appeal_not_found');
    if (row.status === 'pending')
      throw conflict(
        row.announced === false ? 'This appeal is still being filed' : 'This appeal is being decided',
        'appeal_busy',
      );
    throw conflict(`This appeal is already ${row.status}`, 'appeal_already_decided');
  }
  const { row: claimed, lease } = claim;
  let caseRevoked = false;
  if (input.decision === 'accepted') {
    try {
      caseRevoked = await liftAppealed(platform, outbox, hierarchy, claimed, input.decider);
    } catch (err) {
      await appealLeases.release(claimed._id, lease);
      throw err;
    }
  }
  const decided = await appealLeases.release(claimed._id, lease, {
    $set: {
      status: input.decision,
      decidedBy: input.decider.sub,
      decidedByName: input.decider.name,
      decidedAt: new Date(),
      note: input.note || null,
    },
  });
  if (!decided) throw conflict('This appeal was changed while it was being decided', 'appeal_busy');
  await AppealLockModel.deleteOne({
    _id: appealSubject(decided.guild, decided.caseNumber, decided.member),
    appeal: decided._id,
  });
  const appeal = toAppeal(decided);
  await outbox.emit(input.guild, 'appeal.decided', { appeal, caseRevoked });
  return appeal;
}
