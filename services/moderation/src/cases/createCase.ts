import {
  badRequest,
  type Case,
  type CreateCaseBody,
  type Identity,
  isPlatformNotFound,
  notFound,
  type Outbox,
  type PlatformApi,
  platformFailure,
} from '@guildhall/shared';
import type { z } from 'zod';
import { auditReason } from '../platform/auditReason';
import { findPerson } from '../platform/people';
import { forgetPerson } from '../platform/personCache';
import { recordChanged } from '../record/recordCache';
import { applyAction } from './applyAction';
import { sendCaseDm } from './caseDm';
import { claimKey, numberKey, releaseKey, settleKey } from './idempotency';
import { CaseModel, type CaseRow, caseId, historyEntry, newCaseRow, nextCaseNumber } from './model';
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
 * the guild; 400 when moderators target themselves), takes the guild's next number, stores the case `pending`
 * (a warn `active` at once), performs the action on the platform with an audit-log reason naming the moderator
 * and number, then marks it `active` (with `expiresAt` for timeouts and temporary bans) or `failed` with the
 * platform's refusal kept in `failure` and the history. Emits `case.created`. With an idempotency key, a retry
 * returns the first request's case once settled (see `claimKey`) and the platform is not called again.
 */
export async function createCase(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  input: CreateCaseInput,
): Promise<z.infer<typeof Case>> {
  const { guild, body, moderator } = input;
  let keyId: string | undefined;
  if (input.idempotencyKey) {
    const claim = await claimKey(guild, moderator.sub, input.idempotencyKey, body);
    if (!claim.claimed) return toCase((await CaseModel.findById(caseId(guild, claim.caseNumber)).lean<CaseRow>())!);
    keyId = claim.id;
  }
  let row: CaseRow;
  try {
    row = await numberCase(platform, input);
  } catch (err) {
    if (keyId) await releaseKey(keyId);
    throw err;
  }
  if (keyId) await numberKey(keyId, row.number);
  const settled = await settleCase(platform, outbox, row);
  if (keyId) await settleKey(keyId);
  return toCase(settled);
}

/**
 * Settles a stored case: a `pending` one gets its action performed on the platform and becomes `active`, or
 * `failed` with the platform's refusal (a kick whose member already left counts as done); then `case.created` is
 * emitted. The member is told in a DM (`sendCaseDm`): before a kick or ban (the platform refuses DMs once the member
 * is gone), after an accepted warn or timeout. Used right after creation and by `resumePendingCases` for cases a crashed request left `pending`.
 */
export async function settleCase(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  stored: CaseRow,
): Promise<CaseRow> {
  let row = stored;
  if (row.status === 'pending') {
    row = await performAction(platform, row);
    forgetPerson(row.guild, row.target);
  }
  if (row.status === 'active' && (row.action === 'warn' || row.action === 'timeout')) await sendCaseDm(platform, row);
  await outbox.emit(row.guild, 'case.created', {
    case: toCase(row),
    duration: row.duration,
    deleteMessageSeconds: row.deleteMessageSeconds,
    failure: row.failure,
  });
  recordChanged(outbox.bus, row.guild, row.target);
  return row;
}

async function numberCase(platform: PlatformApi, { guild, body, moderator }: CreateCaseInput): Promise<CaseRow> {
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
  const number = await nextCaseNumber(guild);
  const duration = body.duration ?? null;
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
  });
  await CaseModel.create(row);
  return row;
}

async function performAction(platform: PlatformApi, row: CaseRow): Promise<CaseRow> {
  if (row.action === 'kick' || row.action === 'ban') await sendCaseDm(platform, row);
  try {
    await applyAction(platform, row, auditReason(row, { id: row.moderator, name: row.moderatorName }));
  } catch (err) {
    if (!(row.action === 'kick' && isPlatformNotFound(err))) {
      const failure = platformFailure(err);
      return (await CaseModel.findOneAndUpdate(
        { _id: row._id, status: 'pending' },
        {
          $set: { status: 'failed', failure, lease: null },
          $push: { history: historyEntry('failed', { failure }) },
        },
        { returnDocument: 'after' },
      ).lean<CaseRow>())!;
    }
  }
  return (await CaseModel.findOneAndUpdate(
    { _id: row._id, status: 'pending' },
    { $set: { status: 'active', lease: null }, $push: { history: historyEntry('active') } },
    { returnDocument: 'after' },
  ).lean<CaseRow>())!;
}
