import {
  type Appeal,
  conflict,
  HttpProblem,
  type Identity,
  notFound,
  type Outbox,
  type PlatformApi,
  platformProblem,
} from '@guildhall/shared';
import type { z } from 'zod';
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
 * Lifts what an accepted appeal was about: its case is revoked like `POST .../revoke` (a case already revoked
 * counts as lifted); an appeal without a case removes the platform ban. Returns whether a case was revoked.
 */
async function liftAppealed(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  row: AppealRow,
  decider: DecideAppealInput['decider'],
) {
  if (row.caseNumber === null) {
    const reason = `Appeal accepted by ${decider.name} (${decider.sub})`;
    try {
      await liftAction(platform, { action: 'ban', guild: row.guild, target: row.member }, reason);
    } catch (err) {
      throw platformProblem(err, 'remove the ban');
    }
    return false;
  }
  try {
    await revokeCase(platform, outbox, row.guild, row.caseNumber, {
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
 * Decides a pending appeal (404 unknown, 409 already decided, being decided or still being filed). `accepted` lifts
 * the case or ban first (a refusal is a 502 and the appeal stays pending); `denied` keeps the case. Frees the appeal's
 * lock, so the member may appeal again later, and emits `appeal.decided`.
 */
export async function decideAppeal(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  input: DecideAppealInput,
): Promise<z.infer<typeof Appeal>> {
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
      caseRevoked = await liftAppealed(platform, outbox, claimed, input.decider);
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
