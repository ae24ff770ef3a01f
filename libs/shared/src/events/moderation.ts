import type { APIEmbed } from 'discord-api-types/v10';
import { z } from 'zod';
import { Snowflake } from '../contract/common';
import { Appeal, Case, CaseOrigin, Report } from '../contract/moderation';
import { cutCodePoints, TEXT_LIMITS } from '../text';
import { settingsUpdatedEvent } from './settings';

/**
 * Events published by the moderation service on `events.moderation.<guild>.<type>` (JetStream stream EVENTS,
 * through the outbox). Each message is a `ServiceEvent` whose `data` matches the schema of its type below.
 * The logs service consumes `case.*` to post the moderation log and write the journal; it answers a posted
 * case log with its own `events.logs.<guild>.case.logged` event `{caseNumber, logChannel, logMessage}`.
 */

/** The platform's refusal of a case's action: HTTP status, the platform's JSON error code and its message. */
export const CaseFailure = z.strictObject({ status: z.number().int(), code: z.number().int(), message: z.string() });
export type CaseFailure = z.infer<typeof CaseFailure>;

/** `case.created`: a new case, `active` (platform accepted / warn) or `failed` (with `failure`). */
export const CaseCreatedEvent = z.strictObject({
  case: Case,
  /** Seconds of the timeout / temporary ban; null for warn, kick and permanent bans. */
  duration: z.number().int().nullable(),
  /** Ban only: seconds of the target's messages the platform deleted; null when not asked. */
  deleteMessageSeconds: z.number().int().nullable(),
  failure: CaseFailure.nullable(),
  /**
   * Where the action was taken: `service` (through Guildhall) or `platform` (a moderator in the platform's own
   * client, registered from its audit-log entry, which already names them). Absent in events stored before it existed
   * (read as `service`).
   */
  origin: CaseOrigin.optional(),
});
export type CaseCreatedEvent = z.infer<typeof CaseCreatedEvent>;

/** `case.updated`: the reason was edited (`previousReason` is the one it replaced). */
export const CaseUpdatedEvent = z.strictObject({
  case: Case,
  previousReason: z.string(),
  editedBy: Snowflake,
  editedByName: z.string(),
});
export type CaseUpdatedEvent = z.infer<typeof CaseUpdatedEvent>;

/** `case.revoked`: the case was lifted (by a revoke, or by accepting the appeal `appeal`). */
export const CaseRevokedEvent = z.strictObject({
  case: Case,
  revokedBy: Snowflake,
  revokedByName: z.string(),
  /** Id of the accepted appeal that revoked it; null for a direct revoke. */
  appeal: z.string().nullable(),
});
export type CaseRevokedEvent = z.infer<typeof CaseRevokedEvent>;

/** `case.expired`: a timeout or temporary ban ran out (a temporary ban was lifted on the platform). */
export const CaseExpiredEvent = z.strictObject({ case: Case });
export type CaseExpiredEvent = z.infer<typeof CaseExpiredEvent>;

/** `appeal.created`: a member appealed (pending). */
export const AppealCreatedEvent = z.strictObject({ appeal: Appeal });
export type AppealCreatedEvent = z.infer<typeof AppealCreatedEvent>;

/** `appeal.decided`: staff accepted or denied an appeal; `caseRevoked` when accepting revoked the case. */
export const AppealDecidedEvent = z.strictObject({ appeal: Appeal, caseRevoked: z.boolean() });
export type AppealDecidedEvent = z.infer<typeof AppealDecidedEvent>;

/** `report.created`: a member reported a message (open). */
export const ReportCreatedEvent = z.strictObject({ report: Report });
export type ReportCreatedEvent = z.infer<typeof ReportCreatedEvent>;

/** `report.resolved`: staff actioned (with a case) or dismissed a report. */
export const ReportResolvedEvent = z.strictObject({
  report: Report,
  resolvedBy: Snowflake,
  resolvedByName: z.string(),
});
export type ReportResolvedEvent = z.infer<typeof ReportResolvedEvent>;

/**
 * `settings.updated`: the moderation settings (queue channels `appealsChannel`, `reportsChannel`) or the case DM
 * settings (fields `caseDm.<warn|timeout|kick|ban|appealHint>`) changed. `actor` is the platform user who changed
 * them; `area` is always `moderation`; `changes` lists each changed field with its value before and after. The logs
 * service journals it as `settings_update`.
 */
export const ModerationSettingsUpdatedEvent = settingsUpdatedEvent('moderation');
export type ModerationSettingsUpdatedEvent = z.infer<typeof ModerationSettingsUpdatedEvent>;

/** Events published by the moderation service on `events.moderation.<guild>.<type>`: payload schema by type. */
export const moderationEvents = {
  'case.created': CaseCreatedEvent,
  'case.updated': CaseUpdatedEvent,
  'case.revoked': CaseRevokedEvent,
  'case.expired': CaseExpiredEvent,
  'appeal.created': AppealCreatedEvent,
  'appeal.decided': AppealDecidedEvent,
  'report.created': ReportCreatedEvent,
  'report.resolved': ReportResolvedEvent,
  'settings.updated': ModerationSettingsUpdatedEvent,
} as const;

const ACTION_LABELS: Record<z.infer<typeof Case>['action'], string> = {
  warn: 'Warning',
  timeout: 'Timeout',
  kick: 'Kick',
  ban: 'Ban',
};

const STATUS_COLORS: Record<z.infer<typeof Case>['status'], number> = {
  pending: 0x95a5a6,
  active: 0xe67e22,
  expired: 0x7f8c8d,
  revoked: 0x2ecc71,
  failed: 0xe74c3c,
  superseded: 0x7f8c8d,
};

/**
 * The moderation-log embed of a case, in the platform's embed shape: title `Ban · Case #12`, the target,
 * moderator, reason, status and (when set) expiry as a platform timestamp. The logs service posts and re-renders case
 * log messages with it.
 */
export function caseLogEmbed(c: z.infer<typeof Case>): APIEmbed {
  const fields = [
    { name: 'Member', value: `<@${c.target}> (${c.targetName})`, inline: true },
    { name: 'Moderator', value: `<@${c.moderator}> (${c.moderatorName})`, inline: true },
    { name: 'Status', value: c.status, inline: true },
    { name: 'Reason', value: cutCodePoints(c.reason, TEXT_LIMITS.embedFieldValue, '…') },
  ];
  if (c.expiresAt) {
    fields.push({ name: 'Expires', value: `<t:${Math.floor(Date.parse(c.expiresAt) / 1000)}:R>`, inline: true });
  }
  return {
    title: `${ACTION_LABELS[c.action]} · Case #${c.number}`,
    color: STATUS_COLORS[c.status],
    fields,
    timestamp: c.createdAt,
  };
}
