import type { APIEmbed } from 'discord-api-types/v10';
import { z } from 'zod';
import { Snowflake } from '../contract/common';
import { Appeal, Case, Report } from '../contract/moderation';

/**
 * Events published by the moderation service on `events.moderation.<guild>.<type>` (JetStream stream EVENTS,
 * through the outbox). Each message is a `ServiceEvent` whose `data` matches the schema of its type below.
 * The logs service consumes `case.*` to post the moderation log and write the journal; it answers a posted
 * case log with its own `events.logs.<guild>.case.logged` event `{caseNumber, logChannel, logMessage}`.
 */

/** The platform's refusal of a case's action: HTTP status, the platform's JSON error code and its message. */
export const CaseFailure = z.strictObject({ status: z.number().int(), code: z.number().int(), message: z.string() });

/** `case.created`: a new case, `active` (platform accepted / warn) or `failed` (with `failure`). */
export const CaseCreatedData = z.strictObject({
  case: Case,
  /** Seconds of the timeout / temporary ban; null for warn, kick and permanent bans. */
  duration: z.number().int().nullable(),
  /** Ban only: seconds of the target's messages the platform deleted; null when not asked. */
  deleteMessageSeconds: z.number().int().nullable(),
  failure: CaseFailure.nullable(),
});

/** `case.updated`: the reason was edited (`previousReason` is the one it replaced). */
export const CaseUpdatedData = z.strictObject({
  case: Case,
  previousReason: z.string(),
  editedBy: Snowflake,
  editedByName: z.string(),
  /** True when moderation already edited the case's log message on the platform. */
});

/** `case.revoked`: the case was lifted (by a revoke, or by accepting the appeal `appeal`). */
export const CaseRevokedData = z.strictObject({
  case: Case,
  revokedBy: Snowflake,
  revokedByName: z.string(),
  /** Id of the accepted appeal that revoked it; null for a direct revoke. */
  appeal: z.string().nullable(),
});

/** `case.expired`: a timeout or temporary ban ran out (a temporary ban was lifted on the platform). */
export const CaseExpiredData = z.strictObject({ case: Case });

/** `appeal.created`: a member appealed (pending). */
export const AppealCreatedData = z.strictObject({ appeal: Appeal });

/** `appeal.decided`: staff accepted or denied an appeal; `caseRevoked` when accepting revoked the case. */
export const AppealDecidedData = z.strictObject({ appeal: Appeal, caseRevoked: z.boolean() });

/** `report.created`: a member reported a message (open). */
export const ReportCreatedData = z.strictObject({ report: Report });

/** `report.resolved`: staff actioned (with a case) or dismissed a report. */
export const ReportResolvedData = z.strictObject({
  report: Report,
  resolvedBy: Snowflake,
  resolvedByName: z.string(),
});

/** Payload schema of each moderation event type. */
export const moderationEvents = {
  'case.created': CaseCreatedData,
  'case.updated': CaseUpdatedData,
  'case.revoked': CaseRevokedData,
  'case.expired': CaseExpiredData,
  'appeal.created': AppealCreatedData,
  'appeal.decided': AppealDecidedData,
  'report.created': ReportCreatedData,
  'report.resolved': ReportResolvedData,
} as const;

export type ModerationEventType = keyof typeof moderationEvents;
export type ModerationEventData<T extends ModerationEventType> = z.infer<(typeof moderationEvents)[T]>;

/** Events published by the moderation service on `events.moderation.<guild>.<type>` (payload schemas above). */
export const moderationEventTypes = Object.keys(moderationEvents) as ModerationEventType[];

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
    { name: 'Reason', value: c.reason.slice(0, 1024) },
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
