import type { AntinukeKind, PlatformApi } from '@guildhall/shared';
import {
  type APIAuditLogChange,
  AuditLogEvent,
  type GatewayGuildAuditLogEntryCreateDispatchData,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { getSnapshot } from '../snapshots/snapshots';

const P = PermissionFlagsBits;
/**
 * Permissions whose holder can nuke a guild (delete or rewrite its structure, remove its members, or hand such
 * powers on): a role carrying one is "dangerous"; granting one counts as `dangerousGrant` and `strip_roles`
 * removes the roles carrying one.
 */
export const DANGEROUS_PERMISSIONS =
  P.Administrator |
  P.ManageGuild |
  P.ManageRoles |
  P.ManageChannels |
  P.ManageWebhooks |
  P.BanMembers |
  P.KickMembers |
  P.ModerateMembers;

/** Bits of a permissions value as the platform writes it (decimal string; numbers accepted); 0 when absent or bad. */
export function permissionsOf(value: unknown): bigint {
  if (typeof value !== 'string' && typeof value !== 'number') return 0n;
  try {
    return BigInt(value);
  } catch {
    return 0n;
  }
}

/** Whether a permissions value carries a dangerous permission. */
export function isDangerous(permissions: unknown): boolean {
  return (permissionsOf(permissions) & DANGEROUS_PERMISSIONS) !== 0n;
}

const BY_ACTION: Partial<Record<AuditLogEvent, AntinukeKind>> = {
  [AuditLogEvent.ChannelDelete]: 'channelDelete',
  [AuditLogEvent.ThreadDelete]: 'channelDelete',
  [AuditLogEvent.RoleDelete]: 'roleDelete',
  [AuditLogEvent.MemberBanAdd]: 'ban',
  [AuditLogEvent.MemberKick]: 'kick',
  [AuditLogEvent.WebhookCreate]: 'webhookCreate',
};

function change(entry: GatewayGuildAuditLogEntryCreateDispatchData, key: string): APIAuditLogChange | undefined {
  return entry.changes?.find((c) => c.key === key);
}

/**
 * Whether a MEMBER_ROLE_UPDATE adds a role carrying a dangerous permission: from the role's snapshot, else (a role
 * created moments ago whose dispatch the journal consumer has not stored yet) from the platform's role list.
 */
async function addsDangerousRole(
  platform: PlatformApi,
  entry: GatewayGuildAuditLogEntryCreateDispatchData,
): Promise<boolean> {
  const added = change(entry, '$add')?.new_value;
  if (!Array.isArray(added)) return false;
  let live: Map<string, string> | undefined;
  for (const role of added as Array<{ id?: unknown }>) {
    if (typeof role?.id !== 'string') continue;
    const snapshot = await getSnapshot(entry.guild_id, 'role', role.id);
    if (snapshot) {
      if (isDangerous(snapshot.data.permissions)) return true;
      continue;
    }
    live ??= new Map((await platform.guilds.getRoles(entry.guild_id)).map((r) => [r.id, r.permissions]));
    if (isDangerous(live.get(role.id))) return true;
  }
  return false;
}

/**
 * The anti-nuke kind an audit entry counts as, or null: channel/thread delete, role delete, ban, kick, webhook
 * create; `timeout` for a MEMBER_UPDATE setting `communication_disabled_until` (lifting one is not counted);
 * `dangerousGrant` for a role created with a dangerous permission, a role update whose `permissions` gained
 * one, or a member role update adding a role that carries one.
 */
export async function antinukeKindOf(
  platform: PlatformApi,
  entry: GatewayGuildAuditLogEntryCreateDispatchData,
): Promise<AntinukeKind | null> {
  const direct = BY_ACTION[entry.action_type];
  if (direct) return direct;
  if (entry.action_type === AuditLogEvent.RoleCreate || entry.action_type === AuditLogEvent.RoleUpdate) {
    const permissions = change(entry, 'permissions');
    if (!permissions) return null;
    const gained = permissionsOf(permissions.new_value) & ~permissionsOf(permissions.old_value);
    return (gained & DANGEROUS_PERMISSIONS) !== 0n ? 'dangerousGrant' : null;
  }
  if (entry.action_type === AuditLogEvent.MemberUpdate)
    return change(entry, 'communication_disabled_until')?.new_value ? 'timeout' : null;
  if (entry.action_type === AuditLogEvent.MemberRoleUpdate)
    return (await addsDangerousRole(platform, entry)) ? 'dangerousGrant' : null;
  return null;
}
