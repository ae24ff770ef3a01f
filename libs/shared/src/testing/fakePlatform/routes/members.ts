import {
  AuditLogEvent,
  PermissionFlagsBits,
  type RESTPatchAPIGuildMemberJSONBody,
  type RESTPutAPIGuildBanJSONBody,
} from 'discord-api-types/v10';
import { noContent, ok, type RouteTable } from '../context';
import { errors } from '../errors';
import { snowflakeDate } from '../snowflake';
import { fullUser } from '../state';

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

/** Member, member-role, ban and user routes, with Discord's permission and hierarchy checks. */
export const memberRoutes: RouteTable = {
  'GET /guilds/{guild_id}/members/{user_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok(ctx.state.member(guild, ctx.params.user_id));
  },

  'GET /guilds/{guild_id}/members': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok(page([...guild.members.values()], (m) => m.user.id, ctx.query, 1, 1000));
  },

  'PATCH /guilds/{guild_id}/members/{user_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    const member = state.member(guild, ctx.params.user_id);
    const body = ctx.body as RESTPatchAPIGuildMemberJSONBody;
    const isSelf = member.user.id === state.botUser.id;
    if (body.nick !== undefined) {
      state.requireBotPermission(
        guild,
        isSelf ? PermissionFlagsBits.ChangeNickname : PermissionFlagsBits.ManageNicknames,
      );
      if (!isSelf) state.requireBotAbove(guild, member.user.id);
    }
    if (body.roles != null) {
      state.requireBotPermission(guild, PermissionFlagsBits.ManageRoles);
      const next = body.roles.filter((id): id is string => !!id);
      for (const id of next) state.role(guild, id);
      const changed = [
        ...next.filter((id) => !member.roles.includes(id)),
        ...member.roles.filter((id) => !next.includes(id)),
      ];
      for (const id of changed) state.requireRoleBelowBot(guild, id);
    }
    if (body.communication_disabled_until !== undefined) {
      state.requireBotPermission(guild, PermissionFlagsBits.ModerateMembers);
      state.requireBotAbove(guild, member.user.id);
      if (
        (state.permissions(guild, member.user.id) & PermissionFlagsBits.Administrator) ===
        PermissionFlagsBits.Administrator
      )
        throw errors.missingPermissions();
      const until = body.communication_disabled_until;
      if (until && Date.parse(until) - Date.now() > MAX_TIMEOUT_MS) {
        throw errors.invalidField(
          'communication_disabled_until',
          'INVALID_COMMUNICATION_DISABLED_TIMESTAMP',
          'Invalid communication disabled timestamp',
        );
      }
    }
    if (body.mute != null) state.requireBotPermission(guild, PermissionFlagsBits.MuteMembers);
    if (body.deaf != null) state.requireBotPermission(guild, PermissionFlagsBits.DeafenMembers);

    const changes = [];
    if (body.nick !== undefined) {
      changes.push({ key: 'nick', old_value: member.nick ?? undefined, new_value: body.nick ?? undefined });
      member.nick = body.nick;
    }
    if (body.roles != null) member.roles = body.roles.filter((id): id is string => !!id);
    if (body.communication_disabled_until !== undefined) {
      changes.push({
        key: 'communication_disabled_until',
        old_value: member.communication_disabled_until ?? undefined,
        new_value: body.communication_disabled_until ?? undefined,
      });
      member.communication_disabled_until = body.communication_disabled_until;
    }
    if (body.mute != null) member.mute = body.mute;
    if (body.deaf != null) member.deaf = body.deaf;
    const action =
      body.roles != null && changes.length === 0 ? AuditLogEvent.MemberRoleUpdate : AuditLogEvent.MemberUpdate;
    state.audit(guild, {
      action_type: action,
      target_id: member.user.id,
      reason: ctx.reason,
      changes: changes as never,
    });
    return ok(member);
  },

  'DELETE /guilds/{guild_id}/members/{user_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    state.requireBotPermission(guild, PermissionFlagsBits.KickMembers);
    const member = state.member(guild, ctx.params.user_id);
    state.requireBotAbove(guild, member.user.id);
    guild.members.delete(member.user.id);
    state.audit(guild, { action_type: AuditLogEvent.MemberKick, target_id: member.user.id, reason: ctx.reason });
    return noContent();
  },

  'PUT /guilds/{guild_id}/members/{user_id}/roles/{role_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    state.requireBotPermission(guild, PermissionFlagsBits.ManageRoles);
    const member = state.member(guild, ctx.params.user_id);
    state.requireRoleBelowBot(guild, ctx.params.role_id);
    if (!member.roles.includes(ctx.params.role_id)) member.roles.push(ctx.params.role_id);
    state.audit(guild, { action_type: AuditLogEvent.MemberRoleUpdate, target_id: member.user.id, reason: ctx.reason });
    return noContent();
  },

  'DELETE /guilds/{guild_id}/members/{user_id}/roles/{role_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    state.requireBotPermission(guild, PermissionFlagsBits.ManageRoles);
    const member = state.member(guild, ctx.params.user_id);
    state.requireRoleBelowBot(guild, ctx.params.role_id);
    member.roles = member.roles.filter((id) => id !== ctx.params.role_id);
    state.audit(guild, { action_type: AuditLogEvent.MemberRoleUpdate, target_id: member.user.id, reason: ctx.reason });
    return noContent();
  },

  'GET /guilds/{guild_id}/bans': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.BanMembers);
    return ok(page([...guild.bans.values()], (b) => b.user.id, ctx.query, 1000, 1000));
  },

  'GET /guilds/{guild_id}/bans/{user_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.BanMembers);
    const ban = guild.bans.get(ctx.params.user_id);
    if (!ban) throw errors.unknownBan();
    return ok(ban);
  },

  'PUT /guilds/{guild_id}/bans/{user_id}': (ctx) => {
    const { state } = ctx;
    const guild = state.guild(ctx.params.guild_id);
    state.requireBotPermission(guild, PermissionFlagsBits.BanMembers);
    const userId = ctx.params.user_id;
    const member = guild.members.get(userId);
    if (member) state.requireBotAbove(guild, userId);
    else if (userId === guild.owner_id) throw errors.missingPermissions();
    const body = ctx.body as RESTPutAPIGuildBanJSONBody;
    const seconds = body.delete_message_seconds ?? (body.delete_message_days ?? 0) * 86400;
    const since = Date.now() - seconds * 1000;
    for (const [channelId, list] of guild.messages) {
      guild.messages.set(
        channelId,
        list.filter((m) => m.author.id !== userId || snowflakeDate(m.id).getTime() < since),
      );
    }
    guild.members.delete(userId);
    const user = member?.user ?? state.users.get(userId) ?? fullUser({ id: userId });
    guild.bans.set(userId, { user, reason: ctx.reason ?? null });
    state.audit(guild, { action_type: AuditLogEvent.MemberBanAdd, target_id: userId, reason: ctx.reason });
    return noContent();
  },

  'DELETE /guilds/{guild_id}/bans/{user_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.BanMembers);
    if (!guild.bans.delete(ctx.params.user_id)) throw errors.unknownBan();
    ctx.state.audit(guild, {
      action_type: AuditLogEvent.MemberBanRemove,
      target_id: ctx.params.user_id,
      reason: ctx.reason,
    });
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
