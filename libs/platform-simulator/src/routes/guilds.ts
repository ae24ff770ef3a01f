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
import { auditChanges } from '../auditChanges';
import { noContent, ok, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';
import { checkForumTags } from '../limits';
import { fullChannel, fullRole } from '../seed';
import { isThread, type PlatformState } from '../state';
import type { FakeChannel, FakeGuildState } from '../types';
import { announceChange } from './changed';

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

/** Role fields Discord records in role audit-log changes. */
const ROLE_AUDIT_KEYS = ['name', 'permissions', 'color', 'hoist', 'mentionable', 'unicode_emoji', 'icon'];
/** Channel fields Discord records in channel audit-log changes. */
const CHANNEL_AUDIT_KEYS = [
  'name',
  'type',
  'topic',
  'nsfw',
  'parent_id',
  'position',
  'rate_limit_per_user',
  'permission_overwrites',
  'available_tags',
  'default_auto_archive_duration',
  'flags',
];
/** Thread metadata fields Discord records in thread audit-log changes. */
const THREAD_METADATA_AUDIT_KEYS = ['archived', 'locked', 'invitable', 'auto_archive_duration'];

function sortedRoles(guild: FakeGuildState): APIRole[] {
  return [...guild.roles.values()].sort((a, b) => a.position - b.position);
}

/** Overwrites as Discord stores and returns them: `allow` / `deny` as decimal strings, `type` a number. */
function overwritesOf(fields: Record<string, unknown>): Record<string, unknown> {
  const overwrites = fields.permission_overwrites as
    | Array<{ id: string; type: number; allow?: string | number | null; deny?: string | number | null }>
    | undefined;
  if (!Array.isArray(overwrites)) return fields;
  return {
    ...fields,
    permission_overwrites: overwrites.map((o) => ({
      id: o.id,
      type: Number(o.type),
      allow: String(o.allow ?? '0'),
      deny: String(o.deny ?? '0'),
    })),
  };
}

/** Forum tags with ids (new tags get one); 50035 on `available_tags.N.name` for names over 20 characters. */
function assignTagIds(
  state: PlatformState,
  tags: Array<Partial<APIGuildForumTag> & { name: string }>,
): APIGuildForumTag[] {
  checkForumTags(tags);
  return tags.map((t) => ({
    moderated: false,
    emoji_id: null,
    emoji_name: null,
    ...t,
    id: t.id ?? state.clock.snowflake(),
  }));
}

/** PATCH /channels/{id} of a thread: name, archived, locked, invitable, auto_archive_duration, applied_tags. */
function patchThread(ctx: RequestContext, guild: FakeGuildState, thread: FakeChannel): void {
  const body = ctx.body as Extract<RESTPatchAPIChannelJSONBody, { archived?: boolean }> & { applied_tags?: string[] };
  const meta = thread.thread_metadata!;
  const botId = ctx.actor.id;
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
    meta.archive_timestamp = ctx.state.clock.iso();
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
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageGuild);
    const { name, icon, ...rest } = ctx.body as { name?: string; icon?: string | null };
    const before = guildObject(guild);
    if (name !== undefined) guild.name = name;
    if (icon !== undefined) guild.icon = icon === null ? null : ctx.state.clock.snowflake();
    Object.assign(guild.extra, rest);
    const after = guildObject(guild);
    announceChange(ctx, guild, 'GUILD_UPDATE', after as never, {
      action: AuditLogEvent.GuildUpdate,
      target: guild.id,
      before,
      after,
      keys: Object.keys(ctx.body),
    });
    return ok(after);
  },

  'GET /guilds/{guild_id}/roles': (ctx) => ok(sortedRoles(ctx.state.guild(ctx.params.guild_id))),

  'GET /guilds/{guild_id}/roles/{role_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok(ctx.state.role(guild, ctx.params.role_id));
  },

  'POST /guilds/{guild_id}/roles': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageRoles);
    const body = ctx.body as RESTPostAPIGuildRoleJSONBody;
    for (const r of guild.roles.values()) if (r.position >= 1 && r.id !== guild.id) r.position += 1;
    const role = fullRole({
      id: ctx.state.clock.snowflake(),
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
    announceChange(
      ctx,
      guild,
      'GUILD_ROLE_CREATE',
      { guild_id: guild.id, role },
      {
        action: AuditLogEvent.RoleCreate,
        target: role.id,
        after: role,
        keys: ROLE_AUDIT_KEYS,
      },
    );
    return ok(role);
  },

  'PATCH /guilds/{guild_id}/roles/{role_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageRoles);
    ctx.state.requireRoleBelow(guild, ctx.actor.id, ctx.params.role_id);
    const role = ctx.state.role(guild, ctx.params.role_id);
    const body = ctx.body as RESTPatchAPIGuildRoleJSONBody;
    const before = structuredClone(role);
    if (body.name != null) role.name = body.name;
    if (body.permissions != null) role.permissions = String(body.permissions);
    if (body.color != null) role.color = body.color;
    if (body.hoist != null) role.hoist = body.hoist;
    if (body.mentionable != null) role.mentionable = body.mentionable;
    if (body.unicode_emoji !== undefined) role.unicode_emoji = body.unicode_emoji;
    announceChange(
      ctx,
      guild,
      'GUILD_ROLE_UPDATE',
      { guild_id: guild.id, role },
      {
        action: AuditLogEvent.RoleUpdate,
        target: role.id,
        before,
        after: role,
        keys: ROLE_AUDIT_KEYS,
      },
    );
    return ok(role);
  },

  'DELETE /guilds/{guild_id}/roles/{role_id}': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageRoles);
    const role = ctx.state.role(guild, ctx.params.role_id);
    if (role.id === guild.id)
      throw errors.invalidField('role_id', 'BASE_TYPE_INVALID', 'Cannot delete the @everyone role');
    ctx.state.requireRoleBelow(guild, ctx.actor.id, role.id);
    guild.roles.delete(role.id);
    for (const m of guild.members.values()) m.roles = m.roles.filter((id) => id !== role.id);
    announceChange(
      ctx,
      guild,
      'GUILD_ROLE_DELETE',
      { guild_id: guild.id, role_id: role.id },
      {
        action: AuditLogEvent.RoleDelete,
        target: role.id,
        before: role,
        keys: ROLE_AUDIT_KEYS,
      },
    );
    return noContent();
  },

  'GET /guilds/{guild_id}/channels': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    return ok([...guild.channels.values()].filter((c) => !isThread(c)));
  },

  'POST /guilds/{guild_id}/channels': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageChannels);
    const body = ctx.body as RESTPostAPIGuildChannelJSONBody & {
      available_tags?: Array<Partial<APIGuildForumTag> & { name: string }>;
    };
    const { available_tags, ...fields } = body;
    const channel = fullChannel(
      {
        ...(overwritesOf(fields) as Partial<FakeChannel>),
        id: ctx.state.clock.snowflake(),
        type: (body.type ?? ChannelType.GuildText) as ChannelType,
        position: (fields as { position?: number }).position ?? guild.channels.size,
        ...(available_tags ? { available_tags: assignTagIds(ctx.state, available_tags) } : {}),
      },
      guild.id,
    );
    guild.channels.set(channel.id, channel);
    announceChange(ctx, guild, 'CHANNEL_CREATE', channel as never, {
      action: AuditLogEvent.ChannelCreate,
      target: channel.id,
      after: channel,
      keys: CHANNEL_AUDIT_KEYS,
    });
    return ok(channel);
  },

  'GET /channels/{channel_id}': (ctx) => ok(ctx.state.channel(ctx.params.channel_id).channel),

  'PATCH /channels/{channel_id}': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    const before = structuredClone(channel);
    if (isThread(channel)) {
      patchThread(ctx, guild, channel);
      ctx.state.emit(guild.id, 'THREAD_UPDATE', channel as never);
      ctx.state.audit(guild, ctx.actor.id, {
        action_type: AuditLogEvent.ThreadUpdate,
        target_id: channel.id,
        reason: ctx.reason,
        changes: [
          ...auditChanges(before, channel, ['name', 'rate_limit_per_user', 'applied_tags']),
          ...auditChanges(before.thread_metadata, channel.thread_metadata, THREAD_METADATA_AUDIT_KEYS),
        ],
      });
      return ok(channel);
    }
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageChannels);
    const { available_tags, ...fields } = ctx.body as {
      available_tags?: Array<Partial<APIGuildForumTag> & { name: string }>;
    };
    const tags = available_tags ? assignTagIds(ctx.state, available_tags) : undefined;
    Object.assign(channel, overwritesOf(fields));
    if (tags) channel.available_tags = tags;
    announceChange(ctx, guild, 'CHANNEL_UPDATE', channel as never, {
      action: AuditLogEvent.ChannelUpdate,
      target: channel.id,
      before,
      after: channel,
      keys: CHANNEL_AUDIT_KEYS,
    });
    return ok(channel);
  },

  'DELETE /channels/{channel_id}': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    ctx.state.requirePermission(
      guild,
      ctx.actor.id,
      isThread(channel) ? PermissionFlagsBits.ManageThreads : PermissionFlagsBits.ManageChannels,
    );
    guild.channels.delete(channel.id);
    guild.messages.delete(channel.id);
    ctx.state.cdn.forgetChannel(channel.id);
    guild.threadMembers.delete(channel.id);
    const thread = isThread(channel);
    if (thread)
      ctx.state.emit(guild.id, 'THREAD_DELETE', {
        id: channel.id,
        guild_id: guild.id,
        parent_id: String(channel.parent_id),
        type: channel.type as never,
      });
    else ctx.state.emit(guild.id, 'CHANNEL_DELETE', channel as never);
    ctx.state.audit(guild, ctx.actor.id, {
      action_type: thread ? AuditLogEvent.ThreadDelete : AuditLogEvent.ChannelDelete,
      target_id: channel.id,
      reason: ctx.reason,
      changes: auditChanges(channel, undefined, thread ? ['name', 'type'] : CHANNEL_AUDIT_KEYS),
    });
    return ok(channel);
  },

  'GET /guilds/{guild_id}/threads/active': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    // Discord: "Threads are ordered by their id, in descending order."
    const threads = [...guild.channels.values()]
      .filter((c) => isThread(c) && !c.thread_metadata?.archived)
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const botId = ctx.state.botUser.id;
    const members = threads
      .filter((t) => guild.threadMembers.get(t.id)?.has(botId))
      .map((t) => ({ id: t.id, user_id: botId, join_timestamp: ctx.state.clock.iso(), flags: 0 }));
    return ok({ threads, members });
  },

  'GET /guilds/{guild_id}/audit-logs': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ViewAuditLog);
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
