import { snowflakeTime } from '@guildhall/shared';
import {
  type APIGuildMember,
  AuditLogEvent,
  PermissionFlagsBits,
  type RESTPatchAPIGuildMemberJSONBody,
  type RESTPutAPIGuildBanJSONBody,
} from 'discord-api-types/v10';
import { auditChanges, roleChanges } from '../auditChanges';
import { noContent, ok, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';
import { fullUser } from '../state';
import type { FakeGuildState } from '../types';

const MAX_TIMEOUT_MS = 28 * 24 * 60 * 60 * 1000;

function page<T>(
  items: T[],
  idOf: (item: T) => string,
  query: Record<string, string>,
  defaultLimit: number,
  maxLimit: number,
): T[] {
  const sorted = [...items].sort((a, b) => (BigInt(idOf(a)) < BigInt(idOf(b)) ? -1 : 1));
  const after = query.after ? BigInt(query.after) : -1n;
  const before = query.before ? BigInt(query.before) : undefined;
  const limit = Math.min(Number(query.limit ?? defaultLimit), maxLimit);
  return sorted
    .filter((i) => BigInt(idOf(i)) > after && (before === undefined || BigInt(idOf(i)) < before))
    .slice(0, limit);
}

/**
 * Emits what Discord emits after a member edit: GUILD_MEMBER_UPDATE when anything changed, audit 24 (member
 * update) with the nick / timeout / mute / deaf changes and audit 25 (member role update) with `$add` / `$remove`.
 */
function memberChanged(ctx: RequestContext, guild: FakeGuildState, before: APIGuildMember, after: APIGuildMember) {
  const changes = auditChanges(before, after, ['nick', 'communication_disabled_until', 'mute', 'deaf']);
  const roleOf = (id: string) => ({ id, name: guild.roles.get(id)?.name ?? '' });
  const added = after.roles.filter((id) => !before.roles.includes(id)).map(roleOf);
  const removed = before.roles.filter((id) => !after.roles.includes(id)).map(roleOf);
  if (!changes.length && !added.length && !removed.length) return;
  ctx.state.emit(guild.id, 'GUILD_MEMBER_UPDATE', {
    guild_id: guild.id,
    ...after,
    avatar: after.avatar ?? null,
    banner: after.banner ?? null,
  });
  const target = { target_id: after.user.id, reason: ctx.reason };
  if (changes.length)
    ctx.state.audit(guild, ctx.actor.id, { action_type: AuditLogEvent.MemberUpdate, ...target, changes });
  if (added.length || removed.length)
    ctx.state.audit(guild, ctx.actor.id, {
      action_type: AuditLogEvent.MemberRoleUpdate,
      ...target,
      changes: roleChanges(added, removed),
    });
}

/** Member, member-role, ban and user routes, with Discord's permission and hierarchy checks. */
/**
 * PUT/DELETE `/guilds/{g}/members/{u}/roles/{r}`: needs Manage Roles and a role below the actor's highest; sets the
 * member's roles to `change(roles, role)`, then emits GUILD_MEMBER_UPDATE and the audit entry (`memberChanged`). 204.
 */
function editMemberRole(ctx: RequestContext, change: (roles: string[], role: string) => string[]) {
  const { state } = ctx;
  const guild = state.guild(ctx.params.guild_id);
  state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageRoles);
  const member = state.member(guild, ctx.params.user_id);
  state.requireRoleBelow(guild, ctx.actor.id, ctx.params.role_id);
  const before = structuredClone(member);
  member.roles = change(member.roles, ctx.params.role_id);
  memberChanged(ctx, guild, before, member);
  return noContent();
}

export const memberRoutes: RouteTable = {
  'GET /guilds/{guild_id}/members/{user_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok(ctx.state.member(guild, ctx.params.user_id));
  },

  'GET /guilds/{guild_id}/members': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok(page([...guild.members.values()], (m) => m.user.id, ctx.query, 1, 1000));
  },

  /**
   * Search Guild Members: members whose username or nickname starts with `query` (case-insensitive), at most `limit`
   * (1-1000, default 1; the spec validates both), in id order.
   */
  'GET /guilds/{guild_id}/members/search': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    const query = (ctx.query.query ?? '').toLowerCase();
    const matches = [...guild.members.values()].filter((m) =>
      [m.user.username, m.nick].some((name) => name?.toLowerCase().startsWith(query)),
    );
    return ok(page(matches, (m) => m.user.id, {}, Number(ctx.query.limit ?? 1), 1000));
  },

  'PATCH /guilds/{guild_id}/members/{user_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    const member = state.member(guild, ctx.params.user_id);
    const body = ctx.body as RESTPatchAPIGuildMemberJSONBody;
    const isSelf = member.user.id === ctx.actor.id;
    if (body.nick !== undefined) {
      state.requirePermission(
        guild,
        ctx.actor.id,
        isSelf ? PermissionFlagsBits.ChangeNickname : PermissionFlagsBits.ManageNicknames,
      );
      if (!isSelf) state.requireAbove(guild, ctx.actor.id, member.user.id);
    }
    if (body.roles != null) {
      state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageRoles);
      const next = body.roles.filter((id): id is string => !!id);
      for (const id of next) state.role(guild, id);
      const changed = [
        ...next.filter((id) => !member.roles.includes(id)),
        ...member.roles.filter((id) => !next.includes(id)),
      ];
      for (const id of changed) state.requireRoleBelow(guild, ctx.actor.id, id);
    }
    if (body.communication_disabled_until !== undefined) {
      state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ModerateMembers);
      state.requireAbove(guild, ctx.actor.id, member.user.id);
      if (
        (state.permissions(guild, member.user.id) & PermissionFlagsBits.Administrator) ===
        PermissionFlagsBits.Administrator
      )
        throw errors.missingPermissions();
      const until = body.communication_disabled_until;
      if (until && Date.parse(until) - ctx.state.clock.ms() > MAX_TIMEOUT_MS) {
        throw errors.invalidField(
          'communication_disabled_until',
          'INVALID_COMMUNICATION_DISABLED_TIMESTAMP',
          'Invalid communication disabled timestamp',
        );
      }
    }
    if (body.mute != null) state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.MuteMembers);
    if (body.deaf != null) state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.DeafenMembers);

    const before = structuredClone(member);
    if (body.nick !== undefined) member.nick = body.nick;
    if (body.roles != null) member.roles = body.roles.filter((id): id is string => !!id);
    if (body.communication_disabled_until !== undefined)
      member.communication_disabled_until = body.communication_disabled_until;
    if (body.mute != null) member.mute = body.mute;
    if (body.deaf != null) member.deaf = body.deaf;
    memberChanged(ctx, guild, before, member);
    return ok(member);
  },

  'DELETE /guilds/{guild_id}/members/{user_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.KickMembers);
    const member = state.member(guild, ctx.params.user_id);
    state.requireAbove(guild, ctx.actor.id, member.user.id);
    guild.members.delete(member.user.id);
    state.emit(guild.id, 'GUILD_MEMBER_REMOVE', { guild_id: guild.id, user: member.user });
    state.audit(guild, ctx.actor.id, {
      action_type: AuditLogEvent.MemberKick,
      target_id: member.user.id,
      reason: ctx.reason,
    });
    return noContent();
  },

  'PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}': (ctx) =>
    editMemberRole(ctx, (roles, role) => (roles.includes(role) ? roles : [...roles, role])),

  'DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}': (ctx) =>
    editMemberRole(ctx, (roles, role) => roles.filter((id) => id !== role)),

  'GET /guilds/{guild_id}/bans': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.BanMembers);
    return ok(page([...guild.bans.values()], (b) => b.user.id, ctx.query, 1000, 1000));
  },

  'GET /guilds/{guild_id}/bans/{user_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.BanMembers);
    const ban = guild.bans.get(ctx.params.user_id);
    if (!ban) throw errors.unknownBan();
    return ok(ban);
  },

  'PUT /guilds/{guild_id}/bans/{user_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.BanMembers);
    const userId = ctx.params.user_id;
    const member = guild.members.get(userId);
    if (member) state.requireAbove(guild, ctx.actor.id, userId);
    else if (userId === guild.owner_id) throw errors.missingPermissions();
    const body = ctx.body as RESTPutAPIGuildBanJSONBody;
    const seconds = body.delete_message_seconds ?? (body.delete_message_days ?? 0) * 86400;
    const since = ctx.state.clock.ms() - seconds * 1000;
    const user = member?.user ?? state.users.get(userId) ?? fullUser({ id: userId });
    guild.bans.set(userId, { user, reason: ctx.reason ?? null });
    state.emit(guild.id, 'GUILD_BAN_ADD', { guild_id: guild.id, user });
    if (member) {
      guild.members.delete(userId);
      state.emit(guild.id, 'GUILD_MEMBER_REMOVE', { guild_id: guild.id, user });
    }
    for (const [channelId, list] of guild.messages) {
      const doomed = list.filter((m) => m.author.id === userId && snowflakeTime(m.id).getTime() >= since);
      if (!doomed.length) continue;
      guild.messages.set(
        channelId,
        list.filter((m) => !doomed.includes(m)),
      );
      state.emit(guild.id, 'MESSAGE_DELETE_BULK', {
        guild_id: guild.id,
        channel_id: channelId,
        ids: doomed.map((m) => m.id),
      });
    }
    state.audit(guild, ctx.actor.id, {
      action_type: AuditLogEvent.MemberBanAdd,
      target_id: userId,
      reason: ctx.reason,
    });
    return noContent();
  },

  'DELETE /guilds/{guild_id}/bans/{user_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.BanMembers);
    const ban = guild.bans.get(ctx.params.user_id);
    if (!ban) throw errors.unknownBan();
    guild.bans.delete(ctx.params.user_id);
    ctx.state.emit(guild.id, 'GUILD_BAN_REMOVE', { guild_id: guild.id, user: ban.user });
    ctx.state.audit(guild, ctx.actor.id, {
      action_type: AuditLogEvent.MemberBanRemove,
      target_id: ctx.params.user_id,
      reason: ctx.reason,
    });
    return noContent();
  },

  /** The acting user leaves the guild: GUILD_MEMBER_REMOVE, no audit entry (a leave is not a kick). */
  'DELETE /users/@me/guilds/{guild_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    const member = ctx.state.member(guild, ctx.actor.id);
    if (member.user.id === guild.owner_id)
      throw errors.invalidField('guild_id', 'BASE_TYPE_INVALID', 'The owner cannot leave the guild');
    guild.members.delete(member.user.id);
    ctx.state.emit(guild.id, 'GUILD_MEMBER_REMOVE', { guild_id: guild.id, user: member.user });
    return noContent();
  },

  'GET /users/{user_id}': (ctx) => {
    const user = ctx.state.users.get(ctx.params.user_id);
    if (!user) throw errors.unknownUser();
    return ok(user);
  },

  'GET /users/@me': (ctx) => {
    if (!ctx.bearer) return ok(ctx.state.botUser);
    const user = ctx.state.oauthUsers.get(ctx.bearer.userId)!;
    const { guilds: _guilds, scope: _scope, ...fields } = user;
    const withEmail = ctx.bearer.scope.split(' ').includes('email');
    return ok({ ...fullUser(fields), ...(withEmail ? {} : { email: undefined, verified: undefined }) });
  },

  'GET /users/@me/guilds': (ctx) => {
    const { state } = ctx;
    if (ctx.bearer) {
      if (!ctx.bearer.scope.split(' ').includes('guilds')) throw errors.missingAccess();
      const guilds = state.oauthUsers.get(ctx.bearer.userId)?.guilds ?? [];
      const full = guilds.map((g) => ({
        icon: null,
        banner: null,
        owner: false,
        features: [],
        permissions: '0',
        ...g,
      }));
      return ok(page(full, (g) => g.id, ctx.query, 200, 200));
    }
    const own = [...state.guilds.values()].map((g) => ({
      id: g.id,
      name: g.name,
      icon: g.icon,
      banner: null,
      owner: g.owner_id === state.botUser.id,
      features: g.features,
      permissions: state.permissions(g, state.botUser.id).toString(),
    }));
    return ok(page(own, (g) => g.id, ctx.query, 200, 200));
  },
};
