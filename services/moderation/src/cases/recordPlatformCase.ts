import type { Lease, Outbox, PlatformApi } from '@guildhall/shared';
import type { AuditPunishment } from '../platform/auditPunishment';
import { findPerson } from '../platform/people';
import { CaseModel, type CaseRow, caseLeases, historyEntry, newCaseRow, nextCaseNumber } from './model';
import { settleCase } from './settleCase';

/** The reason of a platform case whose audit-log entry carries none (the client sent no reason). */
const NO_PLATFORM_REASON = 'No reason given on the platform';

/** MongoDB's duplicate-key error code (a second case for one audit entry, refused by the unique index). */
const DUPLICATE_KEY = 11000;

/**
 * A ban, kick or timeout `p` that a person made in the platform's own client (read from its audit-log entry by
 * `punishmentOf`) becomes a case like one made through the service, and `active` at once (the platform already did
 * it): the guild's next number, the person as moderator (name from the platform: nickname, display name or username;
 * the id when the platform no longer knows them), the entry's reason (`NO_PLATFORM_REASON` when absent), a timeout's
 * end as `expiresAt` and its length in seconds as `duration`, created at the entry's time, `origin: 'platform'` and
 * `auditEntry` = the entry's id. It is then settled as any case (`settleCase`): older active cases of the same member
 * and action are superseded, a timed-out member is DMed when the guild's DM setting has timeouts on (a kicked or
 * banned member is not: they share no guild with the bot any more, and the platform refuses such DMs), `case.created`
 * is emitted (the logs service posts it) and the member record is dropped from the caches.
 * One case per entry: the unique `auditEntry` index refuses a second one, and a redelivered entry finds its case and
 * only finishes settling it when the first delivery died before (`announced: false`, its lease lapsed; the recovery
 * poller `resumePendingCases` finishes such a case too, whichever comes first). While another replica still holds that
 * case's lease, it throws, so the entry is delivered again later. A process dying between taking the number and
 * storing the case skips that number (as for any case). Returns the case.
 * Throws a 502 problem when the platform refuses the name look-ups (the entry is then delivered again).
 */
export async function recordPlatformCase(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  p: AuditPunishment,
): Promise<CaseRow> {
  if (!(await CaseModel.exists({ auditEntry: p.entry }))) {
    const stored = await storePlatformCase(platform, p);
    if (stored) return settleCase(platform, outbox, stored.row, stored.lease);
  }
  const claimed = await caseLeases.claim({ auditEntry: p.entry, announced: { $ne: true } });
  if (claimed) return settleCase(platform, outbox, claimed.row, claimed.lease);
  const settled = await CaseModel.findOne({ auditEntry: p.entry, announced: true }).lean<CaseRow>();
  if (settled) return settled;
  throw new Error(`the case of audit-log entry ${p.entry} is being settled by another replica`);
}

/**
 * Stores the case of `p`, `active` and held by a new lease (so no other replica settles it meanwhile); returns it with
 * that lease, or null when a case of that entry was stored first (the unique index refused this one).
 */
async function storePlatformCase(
  platform: PlatformApi,
  p: AuditPunishment,
): Promise<{ row: CaseRow; lease: Lease } | null> {
  const [moderator, target] = await Promise.all([
    findPerson(platform, p.guild, p.moderator),
    findPerson(platform, p.guild, p.target),
  ]);
  const moderatorName = moderator?.name ?? p.moderator;
  const number = await nextCaseNumber(p.guild);
  const duration = p.expiresAt ? Math.max(1, Math.round((p.expiresAt.getTime() - p.at.getTime()) / 1000)) : null;
  const note = `taken in the platform's client (audit-log entry ${p.entry})`;
  const lease = caseLeases.newLease();
  const row = newCaseRow({
    guild: p.guild,
    number,
    action: p.action,
    target: p.target,
    targetName: target?.name ?? p.target,
    moderator: p.moderator,
    moderatorName,
    reason: p.reason?.trim() || NO_PLATFORM_REASON,
    status: 'active',
    duration,
    expiresAt: p.expiresAt,
    origin: 'platform',
    auditEntry: p.entry,
    announced: false,
    lease,
    history: [
      { ...historyEntry('created', { by: p.moderator, byName: moderatorName, note }), at: p.at },
      { ...historyEntry('active', { note }), at: p.at },
    ],
    createdAt: p.at,
  });
  try {
    await CaseModel.create(row);
  } catch (err) {
    if ((err as { code?: number }).code === DUPLICATE_KEY) return null;
    throw err;
  }
  return { row, lease };
}
