import { z } from 'zod';
import { DateTime, EmptyBody, GuildParams, Int32, LimitQuery, NumberParam, Snowflake } from './common';
import { JournalEvent, LoggedMessage } from './logs';
import { defineRoute } from './route';
import { CASE_ACTIONS, CASE_ORIGINS, CASE_STATUSES } from './values';

export { CASE_ACTIONS, CASE_ORIGINS, CASE_STATUSES } from './values';

export const CaseAction = z.enum(CASE_ACTIONS);
export const CaseStatus = z.enum(CASE_STATUSES);
export const CaseOrigin = z.enum(CASE_ORIGINS);
export const APPEAL_STATUSES = ['pending', 'accepted', 'denied'] as const;
export const REPORT_STATUSES = ['open', 'actioned', 'dismissed'] as const;

/** The platform's longest timeout: 28 days, in seconds. */
export const MAX_TIMEOUT_SECONDS = 28 * 24 * 3600;

export const Case = z
  .strictObject({
    guild: Snowflake,
    number: Int32,
    action: CaseAction,
    target: Snowflake,
    targetName: z.string(),
    moderator: Snowflake,
    moderatorName: z.string(),
    reason: z.string(),
    status: CaseStatus,
    expiresAt: DateTime.nullable(),
    logChannel: Snowflake.nullable(),
    logMessage: Snowflake.nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'Case' });

export const Appeal = z
  .strictObject({
    id: z.string(),
    guild: Snowflake,
    member: Snowflake,
    memberName: z.string(),
    caseNumber: Int32.nullable(),
    text: z.string(),
    status: z.enum(APPEAL_STATUSES),
    queueThread: Snowflake.nullable(),
    decidedBy: Snowflake.nullable(),
    decidedAt: DateTime.nullable(),
    note: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'Appeal' });

export const Report = z
  .strictObject({
    id: z.string(),
    guild: Snowflake,
    message: Snowflake,
    channel: Snowflake,
    author: Snowflake,
    authorName: z.string(),
    content: z.string(),
    reporter: Snowflake,
    reporterName: z.string(),
    reason: z.string(),
    queueThread: Snowflake.nullable(),
    status: z.enum(REPORT_STATUSES),
    caseNumber: Int32.nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'Report' });

export const MemberUser = z
  .strictObject({ id: Snowflake, name: z.string(), avatar: z.string().nullable(), inServer: z.boolean() })
  .meta({ id: 'MemberUser' });

/** The next step on the escalation ladder; `duration` in seconds (null for warn/kick/permanent ban). */
export const Suggestion = z
  .strictObject({ action: CaseAction, duration: z.number().int().nullable(), why: z.string() })
  .meta({ id: 'Suggestion' });

export const MemberRecord = z
  .strictObject({
    user: MemberUser,
    cases: z.array(Case),
    events: z.array(JournalEvent),
    deleted: z.array(LoggedMessage),
    reports: z.array(Report),
    suggestion: Suggestion,
  })
  .meta({ id: 'MemberRecord' });

const CaseParams = z.strictObject({ guild: Snowflake, number: NumberParam });
const Reason = z.string().trim().min(1, 'must not be empty').max(512, 'must be at most 512 characters');

export const CreateCaseBody = z
  .strictObject({
    target: Snowflake,
    action: CaseAction,
    reason: Reason,
    duration: z
      .number()
      .int()
      .min(1)
      .max(2147483647)
      .optional()
      .meta({ description: 'Seconds; required for timeout (max 28 days), optional for ban (temporary ban)' }),
    deleteMessageSeconds: z
      .number()
      .int()
      .min(0)
      .max(604800)
      .optional()
      .meta({ description: 'Ban only: seconds of messages to delete (max 7 days)' }),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'timeout' && body.duration === undefined) {
      ctx.addIssue({ code: 'custom', path: ['duration'], message: 'is required for a timeout' });
    }
    if (body.action === 'timeout' && body.duration !== undefined && body.duration > MAX_TIMEOUT_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['duration'],
        message: `must be at most ${MAX_TIMEOUT_SECONDS} seconds (28 days)`,
      });
    }
    if ((body.action === 'warn' || body.action === 'kick') && body.duration !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['duration'], message: `is not allowed for ${body.action}` });
    }
    if (body.action !== 'ban' && body.deleteMessageSeconds !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['deleteMessageSeconds'], message: 'is allowed for ban only' });
    }
  });

/** Id of an appeal or report (24 hex characters, time-ordered). */
export const RecordId = z.string().regex(/^[0-9a-f]{24}$/, 'must be an appeal or report id');

/** Where appeals and reports are queued on the platform: a text channel in which each one gets its own thread. */
export const ModerationSettings = z
  .strictObject({
    guild: Snowflake,
    appealsChannel: Snowflake.nullable(),
    reportsChannel: Snowflake.nullable(),
  })
  .meta({ id: 'ModerationSettings' });

/** The platform's refusal of an action: HTTP status, its JSON error code and message (e.g. 403 / 50013). */
export const PlatformRefusal = z
  .strictObject({ status: z.number().int(), code: z.number().int(), message: z.string() })
  .meta({ id: 'PlatformRefusal' });

/** The changes a case history records (docs/moderation.md). */
export const CASE_CHANGES = [
  'created',
  'resumed',
  'active',
  'failed',
  'reason',
  'logged',
  'revoked',
  'expired',
  'dm',
  'revoker',
  'superseded',
] as const;

/** One change of a case: what, who (null for the service itself), when, and the reason it replaced (`reason`). */
export const CaseChange = z
  .strictObject({
    change: z.string().meta({ description: `One of ${CASE_CHANGES.join(', ')}` }),
    at: DateTime,
    by: Snowflake.nullable(),
    byName: z.string().nullable(),
    previousReason: z.string().nullable(),
    failure: PlatformRefusal.nullable(),
    note: z.string().nullable(),
  })
  .meta({ id: 'CaseChange' });

/**
 * A case with why it failed (the platform's refusal, or null), every change, oldest first, and the number of the newer
 * timeout or ban of the same member that superseded it (`supersededBy`, null unless its status is `superseded`).
 * `origin` says where the action was taken and `auditEntry` which audit-log entry a case taken in the platform's own
 * client was recorded from (these two are on the envelope, not on the spec's `Case`).
 */
export const CaseDetail = z
  .strictObject({
    case: Case,
    failure: PlatformRefusal.nullable(),
    history: z.array(CaseChange),
    supersededBy: Int32.nullable().meta({
      description: 'The newer case that became the live timeout/ban of the member (status superseded); else null',
    }),
    origin: CaseOrigin.meta({
      description:
        "Where the action was taken: service (through Guildhall) or platform (in the platform's own client, recorded from its audit log)",
    }),
    auditEntry: Snowflake.nullable().meta({
      description: 'Id of the audit-log entry a platform case was recorded from; null for service cases',
    }),
  })
  .meta({ id: 'CaseDetail' });

/** A page of cases, newest first; `next` is the `before` cursor of the next page (null on the last page). */
export const CaseList = z.strictObject({ cases: z.array(Case), next: Int32.nullable() }).meta({ id: 'CaseList' });

export const ListCasesQuery = z.strictObject({
  target: Snowflake.optional().meta({ description: 'Only cases about this user' }),
  moderator: Snowflake.optional().meta({ description: 'Only cases opened by this moderator' }),
  action: CaseAction.optional(),
  status: CaseStatus.optional(),
  before: NumberParam.optional().meta({ description: 'Case number cursor: only cases numbered below it' }),
  limit: LimitQuery,
});

/** Which case actions DM the member, and the appeal hint the DM ends with (null: the default text). */
export const CaseDmSettings = z
  .strictObject({
    guild: Snowflake,
    warn: z.boolean(),
    timeout: z.boolean(),
    kick: z.boolean(),
    ban: z.boolean(),
    appealHint: z.string().nullable(),
  })
  .meta({ id: 'CaseDmSettings' });

const ListQuery = (statuses: readonly [string, ...string[]]) =>
  z.strictObject({
    status: z.enum(statuses).optional(),
    before: RecordId.optional().meta({ description: 'Id cursor: only items older than this one' }),
    limit: LimitQuery,
  });

export const moderationRoutes = {
  createCase: defineRoute({
    id: 'createCase',
    method: 'post',
    path: '/api/v1/servers/{guild}/cases',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.write',
    inSpec: true,
    summary: 'Create a case (warn, timeout, kick, ban)',
    description:
      'Numbers the case per guild (atomic counter), performs the action on the platform (timeout: member edit with ' +
      '`communication_disabled_until`; kick: member remove; ban: ban create with optional `deleteMessageSeconds`), ' +
      'each with an audit-log reason `[for <moderator id>] Case #N by ...` naming the moderator and case number. ' +
      'Before any platform call the role hierarchy is checked (403 `code: hierarchy`, naming whose role is too low: ' +
      "the moderator's and the bot's highest role must be above the target's, nobody acts on the guild owner, an " +
      'Administrator cannot be timed out; 503 when it cannot be checked). Status `active` when the platform ' +
      'accepted (warn at once), `failed` with the reason when it refused. A new timeout or ban makes the older ' +
      'active case of the same member and action `superseded` (one live punishment per member and effect). ' +
      '`duration` is in seconds. The moderator is ' +
      'the caller. An `Idempotency-Key` header (1-200 printable characters, per moderator) makes a retry return the ' +
      "first result without acting again. A failed case keeps its number; the platform's refusal is in the " +
      '`case.created` event and the case history (docs/moderation.md). 404 when the target user does not exist on ' +
      'the platform; 409 when the Idempotency-Key was used with a different body or the first request is still running.',
    params: GuildParams,
    body: CreateCaseBody,
    success: { status: 201, schema: Case, description: 'The case (status active or failed)' },
    errors: [400, 404, 409],
  }),
  editCaseReason: defineRoute({
    id: 'editCaseReason',
    method: 'patch',
    path: '/api/v1/servers/{guild}/cases/{number}',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.write',
    inSpec: true,
    summary: "Edit a case's reason",
    description:
      'Replaces the reason (the previous one is kept in the case history) and updates the case log message if one was ' +
      'posted. 403 `code: self` for a case about the caller; 403 `code: hierarchy` when the case is another ' +
      "moderator's and the caller is not above its target in the role hierarchy. 404 when unknown.",
    params: CaseParams,
    body: z.strictObject({ reason: Reason }),
    success: { status: 200, schema: Case, description: 'The updated case' },
    errors: [400, 404],
  }),
  revokeCase: defineRoute({
    id: 'revokeCase',
    method: 'post',
    path: '/api/v1/servers/{guild}/cases/{number}/revoke',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.revoke',
    inSpec: true,
    summary: 'Revoke a case',
    description:
      "Lifts the member's live timeout or ban on the platform and marks the case `revoked`; an `expired` or " +
      '`superseded` case (a newer case holds the effect) is revoked without a platform call, so the member stays ' +
      'timed out or banned under the newer case. It stops counting toward the suggestion. 403 `code: self` for a ' +
      "case about the caller, `code: hierarchy` when the caller is not above the case's target in the role " +
      'hierarchy. 409 when already revoked, failed or pending (or a newer case of the member is still pending); ' +
      '404 when unknown; 502 when the platform refuses (the case is unchanged).',
    params: CaseParams,
    body: EmptyBody,
    success: { status: 200, schema: Case, description: 'The revoked case' },
    errors: [404, 409, 502],
  }),
  getMemberRecord: defineRoute({
    id: 'getMemberRecord',
    method: 'get',
    path: '/api/v1/servers/{guild}/members/{user}',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.read',
    inSpec: true,
    summary: "A member's record",
    description:
      'The member (from the platform; `inServer`), their cases newest first (at most 100), journal events and deleted ' +
      'messages about them (from the logs service over NATS; at most 50 of each, newest first, and together at most ' +
      '512 KiB of JSON: older ones are left out past that; only of channels the caller can view), their reports (at most ' +
      '50; only those about messages in channels the caller can view, as the logs service decides), and the suggested ' +
      'next action on the escalation ladder ' +
      '(docs/moderation.md). 404 when the platform does not know the user and they have no case; 503 when the logs ' +
      'service does not answer in time.',
    params: z.strictObject({ guild: Snowflake, user: Snowflake }),
    success: { status: 200, schema: MemberRecord, description: 'The record' },
    errors: [400, 404],
  }),
  createAppeal: defineRoute({
    id: 'createAppeal',
    method: 'post',
    path: '/api/v1/record/{guild}/appeals',
    service: 'moderation',
    auth: 'member',
    inSpec: true,
    summary: 'Appeal a case or a ban',
    description:
      'The signed-in user appeals their own case (`caseNumber`) or, without `caseNumber`, a ban on the platform that ' +
      'predates the service (an active, expired or superseded case). `text`: 20-2000 characters. 403 when the case ' +
      'is not about the caller; 404 unknown case or ' +
      'no ban; 409 when a pending appeal exists for it.',
    params: GuildParams,
    body: z.strictObject({
      text: z.string().trim().min(20, 'must be at least 20 characters').max(2000, 'must be at most 2000 characters'),
      caseNumber: z.number().int().min(1).max(2147483647).optional(),
    }),
    success: { status: 201, schema: Appeal, description: 'The pending appeal' },
    errors: [400, 404, 409],
  }),
  listAppeals: defineRoute({
    id: 'listAppeals',
    method: 'get',
    path: '/api/v1/servers/{guild}/appeals',
    service: 'moderation',
    auth: 'guild',
    cap: 'appeals.decide',
    inSpec: false,
    summary: 'List appeals',
    description:
      'Appeals of the guild, newest first, optionally only one `status` (`pending`, `accepted`, `denied`). ' +
      '`before` is an appeal id cursor (exclusive); `limit` default 50, at most 100.',
    params: GuildParams,
    query: ListQuery(APPEAL_STATUSES),
    success: {
      status: 200,
      schema: z.strictObject({ appeals: z.array(Appeal) }).meta({ id: 'AppealList' }),
      description: 'The appeals',
    },
    errors: [400],
  }),
  decideAppeal: defineRoute({
    id: 'decideAppeal',
    method: 'post',
    path: '/api/v1/servers/{guild}/appeals/{id}/decision',
    service: 'moderation',
    auth: 'guild',
    cap: 'appeals.decide',
    inSpec: false,
    summary: 'Accept or deny an appeal',
    description:
      '`accepted` lifts what was appealed like a revoke (the live timeout cleared / ban removed on the platform, a ' +
      'superseded case lifts nothing; the case becomes `revoked` and stops counting); for an appeal without a case ' +
      "the platform ban is removed. 403 `code: self` for the caller's own appeal, `code: hierarchy` when accepting " +
      'and the caller is not above the member in the role hierarchy. `denied` ' +
      'keeps the case. `note` (at most 1000 characters) is kept on the appeal. 404 unknown appeal; 409 already ' +
      'decided; 502 when the platform refuses to lift.',
    params: z.strictObject({ guild: Snowflake, id: RecordId }),
    body: z.strictObject({
      decision: z.enum(['accepted', 'denied']),
      note: z.string().trim().max(1000, 'must be at most 1000 characters'),
    }),
    success: { status: 200, schema: Appeal, description: 'The decided appeal' },
    errors: [400, 404, 409, 502],
  }),
  listReports: defineRoute({
    id: 'listReports',
    method: 'get',
    path: '/api/v1/servers/{guild}/reports',
    service: 'moderation',
    auth: 'guild',
    cap: 'reports.manage',
    inSpec: false,
    summary: 'List message reports',
    description:
      'Reports filed with the "Report message" command, newest first, optionally only one `status` (`open`, ' +
      '`actioned`, `dismissed`). `before` is a report id cursor (exclusive); `limit` default 50, at most 100.',
    params: GuildParams,
    query: ListQuery(REPORT_STATUSES),
    success: {
      status: 200,
      schema: z.strictObject({ reports: z.array(Report) }).meta({ id: 'ReportList' }),
      description: 'The reports',
    },
    errors: [400],
  }),
  resolveReport: defineRoute({
    id: 'resolveReport',
    method: 'post',
    path: '/api/v1/servers/{guild}/reports/{id}/resolve',
    service: 'moderation',
    auth: 'guild',
    cap: 'reports.manage',
    inSpec: false,
    summary: 'Resolve a report',
    description:
      'Moves an `open` report to `actioned` (with `caseNumber`: an existing case about the reported author) or ' +
      "`dismissed` (no `caseNumber`). 403 `code: self` when the reported message is the caller's own. 400 when " +
      '`caseNumber` is missing/extra or the case is about someone else; ' +
      '404 unknown report or case; 409 when the report is not open.',
    params: z.strictObject({ guild: Snowflake, id: RecordId }),
    body: z.strictObject({
      status: z.enum(['actioned', 'dismissed']),
      caseNumber: z.number().int().min(1).max(2147483647).optional(),
    }),
    success: { status: 200, schema: Report, description: 'The resolved report' },
    errors: [400, 404, 409],
  }),
  listCases: defineRoute({
    id: 'listCases',
    method: 'get',
    path: '/api/v1/servers/{guild}/cases',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.read',
    inSpec: false,
    summary: 'List cases',
    description:
      'Cases of the guild from the moderation database, newest (highest number) first, optionally only those about ' +
      '`target`, opened by `moderator`, of one `action` or one `status`. `before` is a case number cursor ' +
      '(exclusive); `limit` default 50, at most 100. `next` is the `before` of the next page, null on the last one.',
    params: GuildParams,
    query: ListCasesQuery,
    success: { status: 200, schema: CaseList, description: 'A page of cases' },
    errors: [400],
  }),
  getCase: defineRoute({
    id: 'getCase',
    method: 'get',
    path: '/api/v1/servers/{guild}/cases/{number}',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.read',
    inSpec: false,
    summary: 'A case with its failure and history',
    description:
      "The case; `failure`: the platform's refusal `{status, code, message}` of a `failed` case (null otherwise); " +
      '`history`: every change oldest first (`created`, `active`, `failed`, `reason` with `previousReason`, ' +
      '`logged`, `revoked`, `expired`, `superseded` naming the newer case in `note`, `dm` with the DM outcome in ' +
      '`note` and a refused DM in `failure`); `supersededBy`: the number of the newer timeout/ban that superseded ' +
      'a `superseded` case (null otherwise). ' +
      '404 when unknown.',
    params: CaseParams,
    success: { status: 200, schema: CaseDetail, description: 'The case' },
    errors: [400, 404],
  }),
  getCaseDmSettings: defineRoute({
    id: 'getCaseDmSettings',
    method: 'get',
    path: '/api/v1/servers/{guild}/moderation/dms',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.read',
    inSpec: false,
    summary: 'Which case actions DM the member',
    description:
      'Per action (`warn`, `timeout`, `kick`, `ban`; all on by default) whether the member gets a DM with the case ' +
      'number, action, reason, duration and how to appeal; `appealHint` replaces the default appeal text (null).',
    params: GuildParams,
    success: { status: 200, schema: CaseDmSettings, description: 'The settings' },
    errors: [],
  }),
  putCaseDmSettings: defineRoute({
    id: 'putCaseDmSettings',
    method: 'put',
    path: '/api/v1/servers/{guild}/moderation/dms',
    service: 'moderation',
    auth: 'guild',
    cap: 'setup.manage',
    inSpec: false,
    summary: 'Set which case actions DM the member',
    description:
      'Turns the case DM on or off per action; `appealHint` (1-500 characters, or null for the default) is the ' +
      'appeal text the DM ends with. Publishes `settings.updated` (the caller as actor, fields `caseDm.<field>`), ' +
      'journaled as `settings_update`.',
    params: GuildParams,
    body: z.strictObject({
      warn: z.boolean(),
      timeout: z.boolean(),
      kick: z.boolean(),
      ban: z.boolean(),
      appealHint: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters').nullable(),
    }),
    success: { status: 200, schema: CaseDmSettings, description: 'The settings' },
    errors: [400],
  }),
  getModerationSettings: defineRoute({
    id: 'getModerationSettings',
    method: 'get',
    path: '/api/v1/servers/{guild}/moderation/settings',
    service: 'moderation',
    auth: 'guild',
    cap: 'cases.read',
    inSpec: false,
    summary: 'Moderation queue channels',
    description: 'The channels where appeals and reports get a thread each (`null`: dashboard only).',
    params: GuildParams,
    success: { status: 200, schema: ModerationSettings, description: 'The settings' },
    errors: [],
  }),
  putModerationSettings: defineRoute({
    id: 'putModerationSettings',
    method: 'put',
    path: '/api/v1/servers/{guild}/moderation/settings',
    service: 'moderation',
    auth: 'guild',
    cap: 'setup.manage',
    inSpec: false,
    summary: 'Set the moderation queue channels',
    description:
      'Sets the text channels where each new appeal / report gets its own thread (`null` turns the queue off). ' +
      'Each channel must be a text channel of the guild (checked on the platform): 400 otherwise. Publishes ' +
      '`settings.updated` (the caller as actor, the changed fields), journaled as `settings_update`.',
    params: GuildParams,
    body: z.strictObject({ appealsChannel: Snowflake.nullable(), reportsChannel: Snowflake.nullable() }),
    success: { status: 200, schema: ModerationSettings, description: 'The settings' },
    errors: [400],
  }),
};
