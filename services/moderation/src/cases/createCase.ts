import {
  assertHierarchy,
  badRequest,
  type Case,
  type CreateCaseBody,
  type Identity,
  type Lease,
  notFound,
  type Outbox,
  type PlatformApi,
} from '@guildhall/shared';
import type { z } from 'zod';
import { findPerson } from '../platform/people';
import type { HierarchyPeer } from './hierarchyPeer';
import { claimKey, numberKey, releaseKey, settleKey } from './idempotency';
import { CaseModel, type CaseRow, caseId, caseLeases, newCaseRow, nextCaseNumber } from './model';
import { settleCase } from './settleCase';
import { toCase } from './toCase';

export interface CreateCaseInput {
  guild: string;
  body: z.output<typeof CreateCaseBody>;
  moderator: Pick<Identity, 'sub' | 'name'>;
  /** The `Idempotency-Key` header, already checked. */
  idempotencyKey?: string;
}

/**
 * Creates a case: looks the target up on the platform (404 unknown user; 404 when a timeout/kick target is not in
 * the guild; 400 when moderators target themselves), checks the role hierarchy (`assertHierarchy`, `action: 'timeout'`
 * for timeouts: 403 `code: hierarchy` naming whose role is too low, 503 when community does not answer), takes the
 * guild's next number, stores the case `pending` (a warn `active` at once) under the request's lease, and settles it
 * (`settleCase`: the platform action with an audit-log reason `[for <moderator>] Case #N by ...`, then `active` with
 * `expiresAt` for timeouts and temporary bans, or `failed` with the platform's refusal; older active cases of the
 * same member and action become `superseded`; `case.created`). With an idempotency key, a retry returns the first
 * request's case once settled (see `claimKey`) and the platform is not called again. A case settled by another holder
 * (the recovery poller took over a lapsed lease) is answered as it stands, never as a 500.
 */
export async function createCase(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  hierarchy: HierarchyPeer,
  input: CreateCaseInput,
): Promise<z.infer<typeof Case>> {
  const { guild, moderator } = input;
  let keyId: string | undefined;
  if (input.idempotencyKey) {
    const claim = await claimKey(guild, moderator.sub, input.idempotencyKey, input.body, async (number) => {
      const row = await CaseModel.findById(caseId(guild, number), { status: 1, announced: 1 }).lean<CaseRow>();
      return !!row && row.status !== 'pending' && row.announced !== false;
    });
    if (!claim.claimed) return storedCase(guild, claim.caseNumber);
    keyId = claim.id;
  }
  let stored: { row: CaseRow; lease: Lease };
  try {
    stored = await numberCase(platform, hierarchy, input);
  } catch (err) {
    if (keyId) await releaseKey(keyId);
    throw err;
  }
  if (keyId) await numberKey(keyId, stored.row.number);
  const settled = await settleCase(platform, outbox, stored.row, stored.lease);
  if (keyId) await settleKey(keyId);
  return toCase(settled);
}

/** Case `number` of `guild` in the API shape; 404 when it is not stored. */
async function storedCase(guild: string, number: number): Promise<z.infer<typeof Case>> {
  const row = await CaseModel.findById(caseId(guild, number)).lean<CaseRow>();
  if (!row) throw notFound(`Unknown case #${number}`, 'case_not_found');
  return toCase(row);
}

/** Checks the request, then stores its case, numbered, under a new lease of the request (`announced: false`). */
async function numberCase(
  platform: PlatformApi,
  hierarchy: HierarchyPeer,
  { guild, body, moderator }: CreateCaseInput,
): Promise<{ row: CaseRow; lease: Lease }> {
  if (body.target === moderator.sub) {
    throw badRequest('Invalid body.target: you cannot open a case about yourself', [
      { field: 'body.target', message: 'must not be yourself' },
    ]);
  }
  const person = await findPerson(platform, guild, body.target);
  if (!person) throw notFound(`Unknown user ${body.target}`);
  if (!person.inServer && (body.action === 'timeout' || body.action === 'kick')) {
    throw notFound(`${person.name} is not a member of this guild`);
  }
  await assertHierarchy(
    hierarchy.bus,
    { guild, actor: moderator.sub, target: body.target, action: body.action === 'timeout' ? 'timeout' : 'act' },
    hierarchy.timeoutMs,
  );
  const number = await nextCaseNumber(guild);
  const duration = body.duration ?? null;
  const lease = caseLeases.newLease();
  const row = newCaseRow({
    guild,
    number,
    action: body.action,
    target: body.target,
    targetName: person.name,
    moderator: moderator.sub,
    moderatorName: moderator.name,
    reason: body.reason,
    duration,
    deleteMessageSeconds: body.deleteMessageSeconds ?? null,
    expiresAt: duration === null ? null : new Date(Date.now() + duration * 1000),
    announced: false,
    lease,
  });
  await CaseModel.create(row);
  return { row, lease };
}
