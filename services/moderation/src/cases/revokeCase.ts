import {
  assertHierarchy,
  type Case,
  conflict,
  forbidden,
  notFound,
  type Outbox,
  type PlatformApi,
  platformProblem,
} from '@guildhall/shared';
import type { z } from 'zod';
import { auditReason } from '../platform/auditReason';
import { forgetPerson } from '../platform/personCache';
import { recordChanged } from '../record/recordCache';
import type { HierarchyPeer } from './hierarchyPeer';
import { liftAction } from './liftAction';
import { newerCaseOf } from './liveCase';
import { CaseModel, type CaseRow, caseId, caseLeases, historyEntry } from './model';
import { toCase } from './toCase';

/**
 * Who revokes, the accepted appeal that led to it (null for a direct revoke) and why, when they said (the `/case revoke`
 * command's reason: the history's note of the revoke).
 */
export interface Revoker {
  id: string;
  name: string;
  appeal: string | null;
  reason?: string;
}

/** Statuses a revoke may end: the case is in effect, ran out, or was superseded by a newer one. */
const REVOCABLE = ['active', 'expired', 'superseded'];

/**
 * Revokes case `number` for `by`. 404 when unknown; 403 `code: self` when the case is about `by` themselves; the role
 * hierarchy between `by` and the case's target (`assertHierarchy`: 403 `code: hierarchy`, 503 when it cannot be
 * checked); then it claims the case (only `active`, `expired` or `superseded` cases: 409 when revoked, failed, pending
 * or being changed by another request). Only the member's live case lifts anything on the platform: an `active`
 * timeout or ban with no newer case of that member and action (timeout cleared / ban removed, audit reason
 * `[for <by>] Revoked: Case #N by ...`; 502 with the platform's refusal, the case stays as it was). A superseded or
 * expired case, or an active one a newer case holds the effect of, lifts nothing (the member stays timed out/banned);
 * 409 `case_busy` while a newer case of the member is still `pending`. Then it is marked `revoked` with who and when;
 * it no longer counts toward the member record's suggestion. Emits `case.revoked`.
 */
export async function revokeCase(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  hierarchy: HierarchyPeer,
  guild: string,
  number: number,
  by: Revoker,
): Promise<z.infer<typeof Case>> {
  const id = caseId(guild, number);
  const stored = await CaseModel.findById(id, { target: 1 }).lean<Pick<CaseRow, 'target'>>();
  if (!stored) throw notFound(`Unknown case #${number}`, 'case_not_found');
  if (stored.target === by.id) throw forbidden(`Case #${number} is about you: someone else must revoke it`, 'self');
  await assertHierarchy(hierarchy.bus, { guild, actor: by.id, target: stored.target }, hierarchy.timeoutMs);
  const claim = await caseLeases.claim({ _id: id, status: { $in: REVOCABLE } });
  if (!claim) {
    const row = await CaseModel.findById(id).lean<CaseRow>();
    if (!row) throw notFound(`Unknown case #${number}`, 'case_not_found');
    if (row.status === 'revoked') throw conflict(`Case #${number} is already revoked`, 'case_already_revoked');
    if (REVOCABLE.includes(row.status)) throw conflict(`Case #${number} is being changed`, 'case_busy');
    throw conflict(`Case #${number} is ${row.status} and cannot be revoked`, 'case_not_revocable');
  }
  const { row: claimed, lease } = claim;
  if (claimed.status === 'active') {
    const newer = await newerCaseOf(claimed);
    if (newer?.status === 'pending') {
      await caseLeases.release(id, lease);
      throw conflict(`Case #${newer.number} of the same member is being applied; try again`, 'case_busy');
    }
    if (!newer) {
      try {
        await liftAction(platform, claimed, auditReason(claimed, by, 'Revoked'));
        forgetPerson(guild, claimed.target);
      } catch (err) {
        await caseLeases.release(id, lease);
        throw platformProblem(err, `lift case #${number}`);
      }
    }
  }
  const revoked = await caseLeases.release(id, lease, {
    $set: { status: 'revoked', revokedBy: by.id, revokedByName: by.name, revokedAt: new Date() },
    $push: {
      history: historyEntry('revoked', {
        by: by.id,
        byName: by.name,
        note: by.appeal ? `appeal ${by.appeal}` : by.reason || null,
      }),
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
