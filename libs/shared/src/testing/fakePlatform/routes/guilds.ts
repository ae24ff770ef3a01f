import {
  type APIGuildForumTag,
  type APIRole,
  AuditLogEvent,
  ChannelType,
  PermissionFlagsBits,
  type RESTPatchAPIChannelJSONBody,
  type RESTPatchAPIGuildRoleJSONBody,
  type RESTPostAPIGuildChannelJSONBody,
  type RESTPostAPIGuildRoleJSONBody,
} from 'discord-api-types/v10';
import { noContent, ok, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';
import { fullChannel, fullRole } from '../seed';
import { snowflake } from '../snowflake';
import { isThread } from '../state';
import type { FakeChannel, FakeGuildState } from '../types';

/** Discord's guild object for a fake guild (roles, emojis, stickers included). */
export function guildObject(guild: FakeGuildState, withCounts = false): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: guild.owner_id,
    region: 'deprecated',
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    verification_level: 1,
    default_message_notifications: 1,
    explicit_content_filter: 2,
    mfa_level: 0,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    preferred_locale: 'en-US',
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    max_members: 500000,
    max_video_channel_users: 25,
    premium_subscription_count: [0, 2, 7, 14][guild.premium_tier] ?? 0,
    ...guild.extra,
    premium_tier: guild.premium_tier,
    features: guild.features,
    roles: sortedRoles(guild),
    emojis: [...guild.emojis.values()],
    stickers: [...guild.stickers.values()],
    ...(withCounts
      ? { approximate_member_count: guild.members.size, approximate_presence_count: guild.members.size }
      : {}),
  };
}

function sortedRoles(guild: FakeGuildState): APIRole[] {
  return [...guild.roles.values()].sort((a, b) => a.position - b.position);
}

function assignTagIds(tags: Array<Partial<APIGuildForumTag> & { name: string }>): APIGuildForumTag[] {
  return tags.map((t) => ({ moderated: false, emoji_id: null, emoji_name: null, ...t, id: t.id ?? snowflake() }));
}

/** PATCH /channels/{id} of a thread: name, archived, locked, invitable, auto_archive_duration, applied_tags. */
function patchThread(ctx: RequestContext, guild: FakeGuildState, thread: FakeChannel): void {
  const body = ctx.body as Extract<RESTPatchAPIChannelJSONBody, { archived?: boolean }> & { applied_tags?: string[] };
  const meta = thread.thread_metadata!;
  const botId = ctx.state.botUser.id;
  const manages =
    (ctx.state.permissions(guild, botId) & PermissionFlagsBits.ManageThreads) === PermissionFlagsBits.ManageThreads;
  if ((body.locked !== undefined || body.invitable !== undefined) && !manages) throw errors.missingPermissions();
  if (!manages && thread.owner_id !== botId) throw errors.missingPermissions();
  if (meta.locked && !manages) throw errors.missingPermissions();
  const onlyArchiveFields = Object.keys(body).every((k) => k === 'archived' || k === 'locked');
  if (meta.archived && body.archived !== false && !onlyArchiveFields) throw errors.threadArchived();
  if (body.applied_tags) {
    if (body.applied_tags.length > 5)
      throw errors.invalidField('applied_tags', 'BASE_TYPE_MAX_LENGTH', 'Must be 5 or fewer in length.');
    const parent = ctx.state.channel(String(thread.parent_id)).channel;
    const known = new Set((parent.available_tags ?? []).map((t) => t.id));
    const unknownTag = body.applied_tags.findIndex((id) => !known.has(id));
    if (unknownTag !== -1) throw errors.invalidField(`applied_tags.${unknownTag}`, 'BASE_TYPE_CHOICES', 'Unknown tag');
    thread.applied_tags = body.applied_tags;
  }
  if (body.name !== undefined) thread.name = body.name;
  if (body.rate_limit_per_user != null) thread.rate_limit_per_user = body.rate_limit_per_user;
  if (body.archived != null && body.archived !== meta.archived) {
    meta.archived = body.archived;
    meta.archive_timestamp = new Date().toISOString();
  }
  if (body.locked != null) meta.locked = body.locked;
  if (body.invitable != null && thread.type === ChannelType.PrivateThread) meta.invitable = body.invitable;
  if (body.auto_archive_duration != null) meta.auto_archive_duration = body.auto_archive_duration;
}

/** Guild, role, channel, active-thread and audit-log routes. */
export const guildRoutes: RouteTable = {
  'GET /guilds/{guild_id}': (ctx) =>
    ok(guildObject(ctx.state.guild(ctx.params.guild_id), ctx.query.with_counts === 'true')),

  'PATCH /guilds/{guild_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.ManageGuild);
    const { name, icon, ...rest } = ctx.body as { name?: string; icon?: string | null };
    if (name !== undefined) guild.name = name;
    if (icon !== undefined) guild.icon = icon === null ? null : snowflake();
    Object.assign(guild.extra, rest);
    ctx.state.audit(guild, { action_type: AuditLogEvent.GuildUpdate, target_id: guild.id, reason: ctx.reason });
    return ok(guildObject(guild));
  },

  'GET /guilds/{guild_id}/roles': (ctx) => ok(sortedRoles(ctx.state.guild(ctx.params.guild_id))),

  'GET /guilds/{guild_id}/roles/{role_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok(ctx.state.role(guild, ctx.params.role_id));
  },

  'POST /guilds/{guild_id}/roles': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.ManageRoles);
    const body = ctx.body as RESTPostAPIGuildRoleJSONBody;
    for (const r of guild.roles.values()) if (r.position >= 1 && r.id !== guild.id) r.position += 1;
    const role = fullRole({
      id: snowflake(),
      name: body.name ?? 'new role',
      position: 1,
      permissions:
        body.permissions != null ? String(body.permissions) : (guild.roles.get(guild.id)?.permissions ?? '0'),
      color: body.color ?? 0,
      hoist: body.hoist ?? false,
      mentionable: body.mentionable ?? false,
      unicode_emoji: body.unicode_emoji ?? null,
      icon: null,
    });
    guild.roles.set(role.id, role);
    ctx.state.audit(guild, { action_type: AuditLogEvent.RoleCreate, target_id: role.id, reason: ctx.reason });
    return ok(role);
  },

  'PATCH /guilds/{guild_id}/roles/{role_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.ManageRoles);
    ctx.state.requireRoleBelowBot(guild, ctx.params.role_id);
    const role = ctx.state.role(guild, ctx.params.role_id);
    const body = ctx.body as RESTPatchAPIGuildRoleJSONBody;
    if (body.name != null) role.name = body.name;
    if (body.permissions != null) role.permissions = String(body.permissions);
    if (body.color != null) role.color = body.color;
    if (body.hoist != null) role.hoist = body.hoist;
    if (body.mentionable != null) role.mentionable = body.mentionable;
    if (body.unicode_emoji !== undefined) role.unicode_emoji = body.unicode_emoji;
    ctx.state.audit(guild, { action_type: AuditLogEvent.RoleUpdate, target_id: role.id, reason: ctx.reason });
    return ok(role);
  },

  'DELETE /guilds/{guild_id}/roles/{role_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.ManageRoles);
    const role = ctx.state.role(guild, ctx.params.role_id);
    if (role.id === guild.id)
      throw errors.invalidField('role_id', 'BASE_TYPE_INVALID', 'Cannot delete the @everyone role');
    ctx.state.requireRoleBelowBot(guild, role.id);
    guild.roles.delete(role.id);
    for (const m of guild.members.values()) m.roles = m.roles.filter((id) => id !== role.id);
    ctx.state.audit(guild, { action_type: AuditLogEvent.RoleDelete, target_id: role.id, reason: ctx.reason });
    return noContent();
  },

  'GET /guilds/{guild_id}/channels': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok([...guild.channels.values()].filter((c) => !isThread(c)));
  },

  'POST /guilds/{guild_id}/channels': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.ManageChannels);
    const body = ctx.body as RESTPostAPIGuildChannelJSONBody & {
      available_tags?: Array<Partial<APIGuildForumTag> & { name: string }>;
    };
    const { available_tags, ...fields } = body;
    const channel = fullChannel(
      {
        ...(fields as Partial<FakeChannel>),
        id: snowflake(),
        type: (body.type ?? ChannelType.GuildText) as ChannelType,
        position: (fields as { position?: number }).position ?? guild.channels.size,
        ...(available_tags ? { available_tags: assignTagIds(available_tags) } : {}),
      },
      guild.id,
    );
    guild.channels.set(channel.id, channel);
    ctx.state.audit(guild, { action_type: AuditLogEvent.ChannelCreate, target_id: channel.id, reason: ctx.reason });
    return ok(channel);
  },

  'GET /channels/{channel_id}': (ctx) => ok(ctx.state.channel(ctx.params.channel_id).channel),

  'PATCH /channels/{channel_id}': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    if (isThread(channel)) {
      patchThread(ctx, guild, channel);
      ctx.state.audit(guild, { action_type: AuditLogEvent.ThreadUpdate, target_id: channel.id, reason: ctx.reason });
      return ok(channel);
    }
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.ManageChannels);
    const { available_tags, ...fields } = ctx.body as {
      available_tags?: Array<Partial<APIGuildForumTag> & { name: string }>;
    };
    Object.assign(channel, fields);
    if (available_tags) channel.available_tags = assignTagIds(available_tags);
    ctx.state.audit(guild, { action_type: AuditLogEvent.ChannelUpdate, target_id: channel.id, reason: ctx.reason });
    return ok(channel);
  },

  'DELETE /channels/{channel_id}': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    ctx.state.requireBotPermission(
      guild,
      isThread(channel) ? PermissionFlagsBits.ManageThreads : PermissionFlagsBits.ManageChannels,
    );
    guild.channels.delete(channel.id);
    guild.messages.delete(channel.id);
    guild.threadMembers.delete(channel.id);
    const thread = isThread(channel);
    ctx.state.audit(guild, {
      action_type: thread ? AuditLogEvent.ThreadDelete : AuditLogEvent.ChannelDelete,
      target_id: channel.id,
      reason: ctx.reason,
    });
    return ok(channel);
  },

  'GET /guilds/{guild_id}/threads/active': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    const threads = [...guild.channels.values()].filter((c) => isThread(c) && !c.thread_metadata?.archived);
    const botId = ctx.state.botUser.id;
    const members = threads
      .filter((t) => guild.threadMembers.get(t.id)?.has(botId))
      .map((t) => ({ id: t.id, user_id: botId, join_timestamp: new Date().toISOString(), flags: 0 }));
    return ok({ threads, members });
  },

  'GET /guilds/{guild_id}/audit-logs': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requireBotPermission(guild, PermissionFlagsBits.ViewAuditLog);
    const { user_id, action_type, before, after, limit } = ctx.query;
    const entries = [...guild.auditLog]
      .filter((e) => !user_id || e.user_id === user_id)
      .filter((e) => !action_type || e.action_type === Number(action_type))
      .filter((e) => !before || BigInt(e.id) < BigInt(before))
      .filter((e) => !after || BigInt(e.id) > BigInt(after))
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
      .slice(0, Math.min(Number(limit ?? 50), 100));
    const userIds = new Set(entries.map((e) => e.user_id).filter((id): id is string => !!id));
    return ok({
      audit_log_entries: entries,
      users: [...userIds].map((id) => ctx.state.users.get(id)).filter(Boolean),
      integrations: [],
      threads: [],
      webhooks: [],
      application_commands: [],
      auto_moderation_rules: [],
      guild_scheduled_events: [],
    });
  },
};
