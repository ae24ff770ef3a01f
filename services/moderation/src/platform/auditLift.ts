import { AuditLogEvent, type GatewayGuildAuditLogEntryCreateDispatchData } from 'discord-api-types/v10';

/** A ban or timeout lifted on the platform, as its audit-log entry tells it. */
export interface AuditLift {
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
 * without actor or target, and the bot's own entries (`botUserId`: the service's revokes, expiries and journal undos
 * settle their cases themselves).
 */
export function liftOf(entry: GatewayGuildAuditLogEntryCreateDispatchData, botUserId: string | null): AuditLift | null {
  const by = entry.user_id;
  const target = entry.target_id;
  if (!by || !target || by === botUserId) return null;
  const base = { guild: entry.guild_id, target, by };
  if (entry.action_type === AuditLogEvent.MemberBanRemove)
    return { ...base, action: 'ban', how: 'unbanned on the platform (audit log)' };
  const timeout = entry.changes?.find((c) => c.key === 'communication_disabled_until');
  if (entry.action_type === AuditLogEvent.MemberUpdate && timeout && !timeout.new_value)
    return { ...base, action: 'timeout', how: 'timeout removed on the platform (audit log)' };
  return null;
}
