import { type Case, conflict, notFound, type Outbox, type PlatformApi, platformProblem } from '@guildhall/shared';
import type { z } from 'zod';
import { auditReason } from '../platform/auditReason';
import { forgetPerson } from '../platform/personCache';
import { recordChanged } from '../record/recordCache';
import { liftAction } from './liftAction';
import { CaseModel, type CaseRow, caseId, caseLeases, historyEntry } from './model';
import { toCase } from './toCase';

/** Who revokes, and the accepted appeal that led to it (null for a direct revoke). */
export interface Revoker {
  id: string;
  name: string;
  appeal: string | null;
}

/**
 * Revokes case `number`: claims it (only `active` or `expired` cases; 409 when revoked, failed, pending or being
 * changed by another request; 404 when unknown), lifts an active timeout or ban on the platform (502 with the
 * platform's refusal, the case stays as it was), then marks it `revoked` with who and when. A revoked case no
 * longer counts toward the member record's suggestion. Emits `case.revoked`.
 */
export async function revokeCase(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  guild: string,
  number: number,
  by: Revoker,
): Promise<z.infer<typeof Case>> {
  const id = caseId(guild, number);
  const claim = await caseLeases.claim({ _id: id, status: { $in: ['active', 'expired'] } });
  if (!claim) {
    const row = await CaseModel.findById(id).lean<CaseRow>();
    if (!row) throw notFound(`Unknown case #${number}`, 'case_not_found');
    if (row.status === 'revoked') throw conflict(`Case #${number} is already revoked`, 'case_already_revoked');
    if (row.status === 'active' || row.status === 'expired')
      throw conflict(`Case #${number} is being changed`, 'case_busy');
    throw conflict(`Case #${number} is ${row.status} and cannot be revoked`, 'case_not_revocable');
  }
  const { row: claimed, lease } = claim;
  if (claimed.status === 'active') {
    try {
      await liftAction(platform, claimed, auditReason(claimed, by, 'Revoked'));
      forgetPerson(guild, claimed.target);
    } catch (err) {
      await caseLeases.release(id, lease);
      throw platformProblem(err, `lift case #${number}`);
    }
  }
  const revoked = await caseLeases.release(id, lease, {
    $set: { status: 'revoked', revokedBy: by.id, revokedByName: by.name, revokedAt: new Date() },
    $push: {
      history: historyEntry('revoked', { by: by.id, byName: by.name, note: by.appeal && `appeal ${by.appeal}` }),
    },
  });
  if (!revoked) throw conflict(`Case #${number} was changed while it was being revoked`, 'case_busy');
  const result = toCase(revoked);
  await outbox.emit(guild, 'case.revoked', {
    case: result,
    revokedBy: by.id,
    revokedByName: by.name,
    appeal: by.appeal,
  });
  recordChanged(outbox.bus, guild, revoked.target);
  return result;
}
