import { snowflakeTime } from '@guildhall/shared';
import { AuditLogEvent, type GatewayGuildAuditLogEntryCreateDispatchData } from 'discord-api-types/v10';

/** A ban, kick or timeout a person made in the platform's own client, as its audit-log entry tells it. */
export interface AuditPunishment {
  /** The audit-log entry's id (snowflake): names the action, so a redelivered entry is recognised. */
  entry: string;
  guild: string;
  /** The punished user (the entry's `target_id`). */
  target: string;
  /** Who did it (the entry's `user_id`), a person, never the bot. */
  moderator: string;
  action: 'ban' | 'kick' | 'timeout';
  /** The entry's `reason` (the `X-Audit-Log-Reason` the client sent); null when none was given. */
  reason: string | null;
  /** When it was done: the time in the entry's snowflake id. */
  at: Date;
  /** A timeout's end (its new `communication_disabled_until`); null for a ban or kick. */
  expiresAt: Date | null;
}

/**
 * The punishment an audit-log entry (`GUILD_AUDIT_LOG_ENTRY_CREATE`) records: MEMBER_BAN_ADD (22) a ban, MEMBER_KICK
 * (20) a kick, MEMBER_UPDATE (24) whose `communication_disabled_until` change has a `new_value` later than the entry
 * itself a timeout (set or changed; a removal is a lift, see `liftOf`). Null for any other entry, an entry without
 * actor or target, and the bot's own entries (`botUserId`: the service's cases are recorded when it makes them).
 */
export function punishmentOf(
  entry: GatewayGuildAuditLogEntryCreateDispatchData,
  botUserId: string,
): AuditPunishment | null {
  const moderator = entry.user_id;
  const target = entry.target_id;
  if (!moderator || !target || moderator === botUserId) return null;
  const at = snowflakeTime(entry.id);
  const base = { entry: entry.id, guild: entry.guild_id, target, moderator, reason: entry.reason ?? null, at };
  if (entry.action_type === AuditLogEvent.MemberBanAdd) return { ...base, action: 'ban', expiresAt: null };
  if (entry.action_type === AuditLogEvent.MemberKick) return { ...base, action: 'kick', expiresAt: null };
  if (entry.action_type !== AuditLogEvent.MemberUpdate) return null;
  const until = entry.changes?.find((c) => c.key === 'communication_disabled_until')?.new_value;
  const expiresAt = typeof until === 'string' ? new Date(until) : null;
  if (!expiresAt || !(expiresAt.getTime() > at.getTime())) return null;
  return { ...base, action: 'timeout', expiresAt };
}
