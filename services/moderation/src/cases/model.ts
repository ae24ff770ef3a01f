import {
  type CaseAction,
  type CaseOrigin,
  type CaseStatus,
  defineCounter,
  LEASE_HOLDER_INDEX,
  type Lease,
  Leases,
  leasePath,
} from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';

/** The platform's refusal stored on a failed case (and on a failed lift attempt in the history). */
export interface StoredFailure {
  status: number;
  code: number;
  message: string;
}

/** One change of a case, oldest first: who did what and, for reason edits, the reason it replaced. */
export interface CaseHistoryEntry {
  at: Date;
  /**
   * One of `CASE_CHANGES` (contract): created, resumed, active, failed, reason, logged, revoked, expired, dm, revoker,
   * superseded.
   */
  change: string;
  by: string | null;
  byName: string | null;
  previousReason: string | null;
  failure: StoredFailure | null;
  note: string | null;
}

/** A stored case. `_id` is `<guild>:<number>`, so a number exists at most once per guild. */
export interface CaseRow {
  _id: string;
  guild: string;
  number: number;
  action: z.infer<typeof CaseAction>;
  target: string;
  targetName: string;
  moderator: string;
  moderatorName: string;
  reason: string;
  status: z.infer<typeof CaseStatus>;
  /** Seconds of a timeout / temporary ban; null otherwise. */
  duration: number | null;
  deleteMessageSeconds: number | null;
  expiresAt: Date | null;
  logChannel: string | null;
  logMessage: string | null;
  failure: StoredFailure | null;
  revokedBy: string | null;
  revokedByName: string | null;
  revokedAt: Date | null;
  /** Keys of the lifts outside a revoke that changed the case (`Lifter.key`), so a redelivered lift finds it. */
  lifts?: string[];
  /**
   * Where the action was taken: `service` (through Guildhall; also cases stored before the field, where it is absent)
   * or `platform` (in the platform's own client, recorded from its audit log, see `recordPlatformCase`).
   */
  origin?: z.infer<typeof CaseOrigin>;
  /** Id of the audit-log entry a `platform` case was recorded from (unique: one case per entry); absent otherwise. */
  auditEntry?: string;
  /**
   * False from the moment a request stores the case until its `case.created` is emitted (then true); absent on cases
   * stored before this field and on seeded ones. A case left `false` by a request that died is finished by
   * `resumePendingCases` once its lease lapsed.
   */
  announced?: boolean;
  /** The newer case of the same member and action that became the live timeout/ban (status `superseded`); else null. */
  supersededBy: number | null;
  /**
   * Claim of a replica doing platform work on the case: the request creating it (stored with the case, renewed while
   * its platform call runs, dropped when it settles), a revoke, an expiry, a resume; null when nobody holds one.
   */
  lease: Lease | null;
  history: CaseHistoryEntry[];
  createdAt: Date;
}

/**
 * A case as lists and the member record show it: every stored field but the history, the stored platform failure
 * and the lease, which no listing answer carries (`CASE_SUMMARY_PROJECTION` leaves them out of the read).
 */
export type CaseSummaryRow = Omit<CaseRow, 'history' | 'failure' | 'lease'>;
/** Projection of a `CaseSummaryRow` read. */
export const CASE_SUMMARY_PROJECTION = { history: 0, failure: 0, lease: 0 } as const;

const failureSchema = new Schema<StoredFailure>(
  { status: Number, code: Number, message: String },
  { _id: false, versionKey: false },
);

const historySchema = new Schema<CaseHistoryEntry>(
  {
    at: { type: Date, required: true },
    change: { type: String, required: true },
    by: { type: String, default: null },
    byName: { type: String, default: null },
    previousReason: { type: String, default: null },
    failure: { type: failureSchema, default: null },
    note: { type: String, default: null },
  },
  { _id: false, versionKey: false },
);

const caseSchema = new Schema<CaseRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    number: { type: Number, required: true },
    action: { type: String, required: true },
    target: { type: String, required: true },
    targetName: { type: String, required: true },
    moderator: { type: String, required: true },
    moderatorName: { type: String, required: true },
    reason: { type: String, required: true },
    status: { type: String, required: true },
    duration: { type: Number, default: null },
    deleteMessageSeconds: { type: Number, default: null },
    expiresAt: { type: Date, default: null },
    logChannel: { type: String, default: null },
    logMessage: { type: String, default: null },
    failure: { type: failureSchema, default: null },
    revokedBy: { type: String, default: null },
    revokedByName: { type: String, default: null },
    revokedAt: { type: Date, default: null },
    lifts: { type: [String], default: undefined },
    origin: { type: String, default: undefined },
    auditEntry: { type: String, default: undefined },
    supersededBy: { type: Number, default: null },
    announced: { type: Boolean },
    lease: leasePath,
    history: { type: [historySchema], default: [] },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'cases' },
);
/** Index of a member's cases, newest first (the member record hints it). */
export const CASES_BY_TARGET = { guild: 1, target: 1, number: -1 } as const;
caseSchema.index(CASES_BY_TARGET);
/** Index of a guild's cases by number, newest first (the case list). */
export const CASES_BY_NUMBER = { guild: 1, number: -1 } as const;
caseSchema.index(CASES_BY_NUMBER);
/** Index of due cases: active ones by expiry time (the expiry poller hints it). */
export const DUE_CASES = { status: 1, expiresAt: 1 } as const;
caseSchema.index(DUE_CASES);
/** Index of cases by status and age (the pending-case recovery hints it). */
export const PENDING_CASES = { status: 1, createdAt: 1 } as const;
caseSchema.index(PENDING_CASES);

/** Index of platform cases by the audit-log entry they were recorded from: unique, so an entry makes one case. */
export const CASES_BY_AUDIT_ENTRY = { auditEntry: 1 } as const;
caseSchema.index(CASES_BY_AUDIT_ENTRY, {
  name: 'auditEntry',
  unique: true,
  partialFilterExpression: { auditEntry: { $type: 'string' } },
});

/** Cases whose request has not emitted `case.created` yet (`announced: false`), oldest first (the recovery hints it). */
export const UNANNOUNCED_CASES = { createdAt: 1 } as const;
caseSchema.index(UNANNOUNCED_CASES, { name: 'unannounced', partialFilterExpression: { announced: false } });
/** A creating request renews its case's lease by holder while it waits on the platform. */
caseSchema.index(LEASE_HOLDER_INDEX);

/** Cases of every guild. */
export const CaseModel = mongoose.models.Case ?? mongoose.model<CaseRow>('Case', caseSchema);

/**
 * Claims on cases (the creating request until it settled, revoke, expiry, resuming abandoned cases), one at a time per
 * case across replicas.
 */
export const caseLeases = new Leases<CaseRow>(CaseModel);

/** The next case number of `guild` (1, 2, 3...), from the guild's atomic counter in collection `case_counters`. */
export const nextCaseNumber = defineCounter('CaseCounter', 'case_counters');

/** The stored id of case `number` in `guild`. */
export function caseId(guild: string, number: number): string {
  return `${guild}:${number}`;
}

/** What a new case is made of; everything else starts empty. */
export type NewCase = Pick<
  CaseRow,
  'guild' | 'number' | 'action' | 'target' | 'targetName' | 'moderator' | 'moderatorName' | 'reason'
> &
  Partial<CaseRow>;

/**
 * A case as it is first stored: `pending` (a warn `active` at once), no expiry, log message, failure or lease, a
 * `created` history entry by the moderator; `fields` may set any member (tests and seeding).
 */
export function newCaseRow(fields: NewCase): CaseRow {
  const createdAt = fields.createdAt ?? new Date();
  return {
    _id: caseId(fields.guild, fields.number),
    status: fields.action === 'warn' ? 'active' : 'pending',
    duration: null,
    deleteMessageSeconds: null,
    expiresAt: null,
    logChannel: null,
    logMessage: null,
    failure: null,
    revokedBy: null,
    revokedByName: null,
    revokedAt: null,
    supersededBy: null,
    lease: null,
    history: [{ ...historyEntry('created', { by: fields.moderator, byName: fields.moderatorName }), at: createdAt }],
    createdAt,
    ...fields,
  };
}

/** A history entry with every optional member null. */
export function historyEntry(change: string, fields: Partial<Omit<CaseHistoryEntry, 'change'>> = {}): CaseHistoryEntry {
  return {
    at: new Date(),
    change,
    by: null,
    byName: null,
    previousReason: null,
    failure: null,
    note: null,
    ...fields,
  };
}
