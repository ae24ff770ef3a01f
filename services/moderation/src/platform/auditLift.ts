import { AuditLogEvent, type GatewayGuildAuditLogEntryCreateDispatchData } from 'discord-api-types/v10';

/** A ban or timeout lifted on the platform, as its audit-log entry tells it. */
export interface AuditLift {
  /** The audit-log entry's id (snowflake): names the lift, so a redelivered entry is recognised. */
  entry: string;
  guild: string;
  target: string;
  action: 'ban' | 'timeout';
  /** Who lifted it (the entry's `user_id`). */
  by: string;
  how: string;
}

/**
 * The lift an audit-log entry records: MEMBER_BAN_REMOVE (an unban), or MEMBER_UPDATE whose
 * `communication_disabled_until` change ends without a value (a timeout removed). Null for any other entry, an entry
 * without actor or target, and the bot's own entries (`botUserId`): an unban or timeout change the service made (a
 * revoke, an expiry, an accepted appeal, a journal undo, an anti-nuke response; its reason `[for <id>] ...`, see
 * `onBehalfReason`) settles its case itself and never revokes one from here.
 */
export function liftOf(entry: GatewayGuildAuditLogEntryCreateDispatchData, botUserId: string): AuditLift | null {
  const by = entry.user_id;
  const target = entry.target_id;
  if (!by || !target || by === botUserId) return null;
  const base = { entry: entry.id, guild: entry.guild_id, target, by };
  if (entry.action_type === AuditLogEvent.MemberBanRemove)
    return { ...base, action: 'ban', how: 'unbanned on the platform (audit log)' };
  const timeout = entry.changes?.find((c) => c.key === 'communication_disabled_until');
  if (entry.action_type === AuditLogEvent.MemberUpdate && timeout && !timeout.new_value)
    return { ...base, action: 'timeout', how: 'timeout removed on the platform (audit log)' };
  return null;
}
