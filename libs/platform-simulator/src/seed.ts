import { newSnowflake } from '@guildhall/shared';
import {
  type APIEmoji,
  type APIGuildMember,
  type APIMessage,
  type APIRole,
  type APISticker,
  ChannelType,
  type GuildMemberFlags,
  GuildPremiumTier,
  PermissionFlagsBits,
  type RoleFlags,
  StickerFormatType,
  StickerType,
  ThreadAutoArchiveDuration,
} from 'discord-api-types/v10';
import { messageCreate } from './messages';
import { FAKE_BOT_USER_ID, fullUser, isThread, type PlatformState } from './state';
import type { FakeChannel, FakeGuildState, SeedGuild, SeedMember } from './types';

/** A complete Discord role from a partial one: the platform's defaults for everything not given. */
export function fullRole(role: Partial<APIRole> & { id: string; name: string }): APIRole {
  const color = role.color ?? 0;
  return {
    color,
    colors: { primary_color: color, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: 0,
    permissions: '0',
    managed: false,
    mentionable: false,
    flags: 0 as RoleFlags,
    ...role,
  };
}

/** A complete guild member from a seed. */
export function fullMember(seed: SeedMember, at: Date = new Date()): APIGuildMember {
  return {
    roles: [],
    joined_at: at.toISOString(),
    deaf: false,
    mute: false,
    flags: 0 as GuildMemberFlags,
    nick: null,
    communication_disabled_until: null,
    ...seed,
    user: fullUser(seed.user),
  };
}

/** A complete channel (or thread) from a partial one, in `guildId`. */
export function fullChannel(
  channel: Partial<FakeChannel> & { id: string; type: ChannelType },
  guildId: string,
): FakeChannel {
  const base: FakeChannel = {
    guild_id: guildId,
    name: `channel-${channel.id.slice(-4)}`,
    position: 0,
    permission_overwrites: [],
    nsfw: false,
    parent_id: null,
    flags: 0,
    ...channel,
  };
  if (channel.type === ChannelType.GuildForum || channel.type === ChannelType.GuildMedia) base.available_tags ??= [];
  if (isThread(base)) {
    base.thread_metadata = {
      archived: false,
      locked: false,
      auto_archive_duration: ThreadAutoArchiveDuration.OneDay,
      archive_timestamp: new Date().toISOString(),
      ...(channel.type === ChannelType.PrivateThread ? { invitable: true } : {}),
      ...channel.thread_metadata,
    };
    base.applied_tags ??= [];
    base.message_count ??= 0;
    base.member_count ??= 0;
    delete base.permission_overwrites;
  }
  return base;
}

function fullEmoji(emoji: Partial<APIEmoji> & { id: string; name: string }): APIEmoji {
  return { roles: [], require_colons: true, managed: false, animated: false, available: true, ...emoji };
}

function fullSticker(sticker: Partial<APISticker> & { id: string; name: string }, guildId: string): APISticker {
  return {
    description: null,
    tags: 'sticker',
    type: StickerType.Guild,
    format_type: StickerFormatType.PNG,
    available: true,
    guild_id: guildId,
    ...sticker,
  };
}

/** A complete message from a partial one, authored by `author` unless given. */
export function fullMessage(
  message: Partial<APIMessage> & { id: string },
  channelId: string,
  author: APIMessage['author'],
): APIMessage {
  return messageCreate({ channel_id: channelId, author, components: [], ...message }) as APIMessage;
}

/** Turns a seed into live guild state; the bot becomes a member holding its managed role. */
export function buildGuildState(seed: SeedGuild, state: PlatformState): FakeGuildState {
  const botId = state.botUser.id;
  const roles = (seed.roles ?? []).map(fullRole);
  if (!roles.some((r) => r.id === seed.id)) roles.push(fullRole({ id: seed.id, name: '@everyone', permissions: '0' }));
  let botRole = roles.find((r) => r.tags?.bot_id === botId);
  if (!botRole) {
    const top = Math.max(0, ...roles.map((r) => r.position));
    for (const r of roles) if (r.position >= top && r.id !== seed.id) r.position += 1;
    botRole = fullRole({
      id: state.clock.snowflake(),
      name: state.botUser.username,
      managed: true,
      tags: { bot_id: botId },
      position: Math.max(1, top),
      permissions: BOT_PERMISSIONS,
    });
    roles.push(botRole);
  }
  if (seed.botRolePosition !== undefined) botRole.position = seed.botRolePosition;

  const members = (seed.members ?? []).map((m) => fullMember(m, state.clock.now()));
  const bot = members.find((m) => m.user.id === botId);
  if (bot) {
    if (!bot.roles.includes(botRole.id)) bot.roles.push(botRole.id);
  } else {
    members.push(fullMember({ user: state.botUser, roles: [botRole.id] }, state.clock.now()));
  }
  for (const m of members) if (!state.users.has(m.user.id)) state.users.set(m.user.id, m.user);

  const channels = (seed.channels ?? []).map((c) => fullChannel(c, seed.id));
  const guild: FakeGuildState = {
    id: seed.id,
    name: seed.name ?? 'Fake Guild',
    owner_id: seed.owner_id,
    icon: seed.icon ?? null,
    premium_tier: seed.premium_tier ?? GuildPremiumTier.None,
    features: seed.features ?? [],
    roles: new Map(roles.map((r) => [r.id, r])),
    channels: new Map(channels.map((c) => [c.id, c])),
    members: new Map(members.map((m) => [m.user.id, m])),
    bans: new Map((seed.bans ?? []).map((b) => [b.user.id, { user: fullUser(b.user), reason: b.reason ?? null }])),
    emojis: new Map((seed.emojis ?? []).map((e) => [e.id, fullEmoji(e)])),
    stickers: new Map((seed.stickers ?? []).map((s) => [s.id, fullSticker(s, seed.id)])),
    webhooks: new Map(),
    messages: new Map(),
    threadMembers: new Map(channels.filter(isThread).map((t) => [t.id, new Set<string>()])),
    auditLog: (seed.audit_log_entries ?? []).map((e) => ({ target_id: null, user_id: null, ...e })),
    extra: seed.description !== undefined ? { description: seed.description } : {},
  };
  for (const [channelId, list] of Object.entries(seed.messages ?? {})) {
    guild.messages.set(
      channelId,
      list.map((m) => fullMessage(m, channelId, m.author ?? state.botUser)),
    );
  }
  const seen = [
    ...[...guild.bans.values()].map((b) => b.user),
    ...[...guild.messages.values()].flat().map((m) => m.author),
  ];
  for (const user of seen) if (!state.users.has(user.id)) state.users.set(user.id, user);
  return guild;
}

/** Permissions of the bot's managed role in `sampleGuild()` (moderation, messages, threads, expressions). */
export const BOT_PERMISSIONS = (
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.CreatePublicThreads |
  PermissionFlagsBits.CreatePrivateThreads |
  PermissionFlagsBits.ManageThreads |
  PermissionFlagsBits.ManageMessages |
  PermissionFlagsBits.ManageChannels |
  PermissionFlagsBits.ManageRoles |
  PermissionFlagsBits.ManageWebhooks |
  PermissionFlagsBits.ManageNicknames |
  PermissionFlagsBits.ManageGuildExpressions |
  PermissionFlagsBits.CreateGuildExpressions |
  PermissionFlagsBits.BanMembers |
  PermissionFlagsBits.KickMembers |
  PermissionFlagsBits.ModerateMembers |
  PermissionFlagsBits.ViewAuditLog |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory
).toString();

/** Ids of everything `sampleGuild()` creates, for assertions. */
export interface SampleGuildIds {
  guild: string;
  owner: string;
  admin: string;
  moderator: string;
  support: string;
  member: string;
  bot: string;
  everyoneRole: string;
  adminRole: string;
  moderatorRole: string;
  supportRole: string;
  botRole: string;
  category: string;
  general: string;
  modLog: string;
  forum: string;
  /** The forum's three tags: Bug, Question, Feedback. */
  tags: [string, string, string];
}

/**
 * A realistic guild seed: roles @everyone (id = guild id, position 0), Support (1), Moderator (2), the bot's
 * managed role (3, just below the top) and Admin (4); a category holding #general and #mod-log; a "help" forum
 * with three tags; members: owner, an admin, a moderator, a support member, a plain member and the bot.
 * `overrides` replaces top-level fields. Returns the seed plus `ids` of everything created.
 */
export function sampleGuild(overrides: Partial<SeedGuild> = {}): SeedGuild & { ids: SampleGuildIds } {
  const id = overrides.id ?? newSnowflake();
  const ids: SampleGuildIds = {
    guild: id,
    owner: newSnowflake(),
    admin: newSnowflake(),
    moderator: newSnowflake(),
    support: newSnowflake(),
    member: newSnowflake(),
    bot: FAKE_BOT_USER_ID,
    everyoneRole: id,
    adminRole: newSnowflake(),
    moderatorRole: newSnowflake(),
    supportRole: newSnowflake(),
    botRole: newSnowflake(),
    category: newSnowflake(),
    general: newSnowflake(),
    modLog: newSnowflake(),
    forum: newSnowflake(),
    tags: [newSnowflake(), newSnowflake(), newSnowflake()],
  };
  const basic =
    PermissionFlagsBits.ViewChannel |
    PermissionFlagsBits.SendMessages |
    PermissionFlagsBits.ReadMessageHistory |
    PermissionFlagsBits.SendMessagesInThreads;
  const seed: SeedGuild = {
    id,
    name: 'Sample Guild',
    owner_id: ids.owner,
    premium_tier: GuildPremiumTier.None,
    roles: [
      { id, name: '@everyone', position: 0, permissions: basic.toString() },
      {
        id: ids.supportRole,
        name: 'Support',
        position: 1,
        color: 0x2ecc71,
        permissions: (basic | PermissionFlagsBits.ManageThreads).toString(),
      },
      {
        id: ids.moderatorRole,
        name: 'Moderator',
        position: 2,
        color: 0x3498db,
        hoist: true,
        permissions: (
          basic |
          PermissionFlagsBits.KickMembers |
          PermissionFlagsBits.BanMembers |
          PermissionFlagsBits.ModerateMembers |
          PermissionFlagsBits.ManageMessages
        ).toString(),
      },
      {
        id: ids.botRole,
        name: 'Guildhall',
        position: 3,
        managed: true,
        tags: { bot_id: FAKE_BOT_USER_ID },
        permissions: BOT_PERMISSIONS,
      },
      {
        id: ids.adminRole,
        name: 'Admin',
        position: 4,
        color: 0xe74c3c,
        hoist: true,
        permissions: PermissionFlagsBits.Administrator.toString(),
      },
    ],
    channels: [
      { id: ids.category, type: ChannelType.GuildCategory, name: 'Community', position: 0 },
      {
        id: ids.general,
        type: ChannelType.GuildText,
        name: 'general',
        parent_id: ids.category,
        position: 1,
        topic: 'General chat',
      },
      { id: ids.modLog, type: ChannelType.GuildText, name: 'mod-log', parent_id: ids.category, position: 2 },
      {
        id: ids.forum,
        type: ChannelType.GuildForum,
        name: 'help',
        parent_id: ids.category,
        position: 3,
        available_tags: [
          { id: ids.tags[0], name: 'Bug', moderated: false, emoji_id: null, emoji_name: '🐛' },
          { id: ids.tags[1], name: 'Question', moderated: false, emoji_id: null, emoji_name: '❓' },
          { id: ids.tags[2], name: 'Feedback', moderated: false, emoji_id: null, emoji_name: '💬' },
        ],
      },
    ],
    members: [
      { user: { id: ids.owner, username: 'owner', global_name: 'Guild Owner' } },
      { user: { id: ids.admin, username: 'alice' }, roles: [ids.adminRole] },
      { user: { id: ids.moderator, username: 'mo' }, roles: [ids.moderatorRole] },
      { user: { id: ids.support, username: 'sam' }, roles: [ids.supportRole] },
      { user: { id: ids.member, username: 'pat' } },
      { user: { id: FAKE_BOT_USER_ID, username: 'Guildhall', bot: true }, roles: [ids.botRole] },
    ],
    ...overrides,
  };
  return { ...seed, ids };
}
