import {
  type APIEmoji,
  type APIGuildCategoryChannel,
  type APIGuildForumChannel,
  type APIGuildMember,
  type APIGuildVoiceChannel,
  type APIMessage,
  type APINewsChannel,
  type APIOverwrite,
  type APIRole,
  type APITextChannel,
  type APIThreadChannel,
  type APIUser,
  type ChannelFlags,
  ChannelType,
  ForumLayoutType,
  type GuildMemberFlags,
  OverwriteType,
  PermissionFlagsBits,
  SortOrderType,
  ThreadAutoArchiveDuration,
  type UserFlags,
  VideoQualityMode,
} from 'discord-api-types/v10';
import { fullRole } from '../seed';
import { IDS } from './cast';
import type { Random } from './random';
import type { SnowflakeClock } from './snowflakes';
import { NAMES } from './text';

/** A guild channel that is not a thread, as GUILD_CREATE and CHANNEL_* dispatches carry it. */
export type GuildChannel = (
  | APIGuildCategoryChannel
  | APITextChannel
  | APINewsChannel
  | APIGuildForumChannel
  | APIGuildVoiceChannel
) & { guild_id: string };

/** A member of the fixture world, with how chatty they are. */
export interface Person {
  member: APIGuildMember;
  /** Relative share of the day's chat messages. */
  activity: number;
}

/** The mutable state of the fixture guild while the day is generated. */
export interface World {
  roles: Map<string, APIRole>;
  channels: Map<string, GuildChannel>;
  threads: Map<string, APIThreadChannel>;
  people: Map<string, Person>;
  bans: Map<string, { user: APIUser; reason: string | null }>;
  emojis: Map<string, APIEmoji>;
  /** Messages still present, per channel or thread id, oldest first. */
  messages: Map<string, APIMessage[]>;
  /** Users who were ever seen (members, leavers, banned), by id. */
  users: Map<string, APIUser>;
  description: string | null;
}

const ALL = (...bits: bigint[]) => bits.reduce((a, b) => a | b, 0n).toString();

/** A complete user object as the gateway sends it. */
export function makeUser(id: string, name: string, rng: Random, bot = false): APIUser {
  return {
    id,
    username: bot ? name : `${name.toLowerCase()}${rng.int(1, 99)}`,
    avatar: rng.chance(0.8) ? rng.hex(32) : null,
    discriminator: bot ? String(rng.int(1000, 9999)) : '0',
    public_flags: 0 as UserFlags,
    flags: 0 as UserFlags,
    ...(bot ? { bot: true } : {}),
    global_name: bot ? null : name,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
  };
}

/** A complete guild member joined at `joinedAt`. */
function makeMember(user: APIUser, roles: string[], joinedAt: Date, nick: string | null = null): APIGuildMember {
  return {
    user,
    roles,
    nick,
    avatar: null,
    banner: null,
    premium_since: null,
    joined_at: joinedAt.toISOString().replace('Z', '000+00:00'),
    deaf: false,
    mute: false,
    pending: false,
    flags: 0 as GuildMemberFlags,
    communication_disabled_until: null,
  };
}

const staffOnly = (): APIOverwrite[] => [
  { id: IDS.guild, type: OverwriteType.Role, allow: '0', deny: PermissionFlagsBits.ViewChannel.toString() },
  { id: IDS.roles.moderator, type: OverwriteType.Role, allow: PermissionFlagsBits.ViewChannel.toString(), deny: '0' },
];

/** A text channel under `parent`. */
export function textChannel(
  id: string,
  name: string,
  parent: string | null,
  position: number,
  extra: Partial<APITextChannel> = {},
): APITextChannel & { guild_id: string } {
  return {
    id,
    type: ChannelType.GuildText,
    guild_id: IDS.guild,
    name,
    position,
    parent_id: parent,
    topic: null,
    nsfw: false,
    rate_limit_per_user: 0,
    last_message_id: null,
    last_pin_timestamp: null,
    permission_overwrites: [],
    flags: 0 as ChannelFlags,
    default_thread_rate_limit_per_user: 0,
    ...extra,
  };
}

function category(id: string, name: string, position: number, overwrites: APIOverwrite[] = []): GuildChannel {
  const channel: APIGuildCategoryChannel & { guild_id: string } = {
    id,
    type: ChannelType.GuildCategory,
    guild_id: IDS.guild,
    name,
    position,
    parent_id: null,
    permission_overwrites: overwrites,
    flags: 0 as ChannelFlags,
  };
  return channel;
}

function forum(): GuildChannel {
  const tag = (id: string, name: string, emoji: string, moderated = false) => ({
    id,
    name,
    moderated,
    emoji_id: null,
    emoji_name: emoji,
  });
  const channel: APIGuildForumChannel & { guild_id: string } = {
    id: IDS.channels.suggestions,
    type: ChannelType.GuildForum,
    guild_id: IDS.guild,
    name: 'suggestions',
    position: 5,
    parent_id: IDS.categories.community,
    topic: 'One post per idea. Vote with 👍 / 👎; staff tag posts Planned or Done.',
    nsfw: false,
    rate_limit_per_user: 0,
    last_message_id: null,
    permission_overwrites: [],
    flags: 0 as ChannelFlags,
    available_tags: [
      tag(IDS.tags.idea, 'Idea', '💡'),
      tag(IDS.tags.bug, 'Bug', '🐛'),
      tag(IDS.tags.planned, 'Planned', '🗓️', true),
      tag(IDS.tags.done, 'Done', '✅', true),
    ],
    default_reaction_emoji: { emoji_id: null, emoji_name: '👍' },
    default_thread_rate_limit_per_user: 0,
    default_sort_order: SortOrderType.LatestActivity,
    default_forum_layout: ForumLayoutType.ListView,
    default_auto_archive_duration: ThreadAutoArchiveDuration.ThreeDays,
  };
  return channel;
}

function voice(): GuildChannel {
  const channel: APIGuildVoiceChannel & { guild_id: string } = {
    id: IDS.channels.lounge,
    type: ChannelType.GuildVoice,
    guild_id: IDS.guild,
    name: 'Lounge',
    position: 0,
    parent_id: IDS.categories.community,
    bitrate: 64000,
    user_limit: 0,
    rtc_region: null,
    video_quality_mode: VideoQualityMode.Auto,
    nsfw: false,
    rate_limit_per_user: 0,
    last_message_id: null,
    permission_overwrites: [],
    flags: 0 as ChannelFlags,
  };
  return channel;
}

/**
 * The guild as it was when the day began: 7 roles besides @everyone, 4 categories, 9 text/forum/announcement
 * channels and a voice channel, 60 members (owner, admin, moderator, Guildhall bot, a music bot, 55 regulars), two
 * old bans, six custom emojis, one open forum post from the day before and the ticket panel message.
 */
export function initialWorld(rng: Random, clock: SnowflakeClock): World {
  const roles = new Map<string, APIRole>();
  const addRole = (r: Partial<APIRole> & { id: string; name: string }) => roles.set(r.id, fullRole(r));
  addRole({
    id: IDS.guild,
    name: '@everyone',
    permissions: ALL(
      PermissionFlagsBits.ViewChannel,
      PermissionFlagsBits.SendMessages,
      PermissionFlagsBits.ReadMessageHistory,
      PermissionFlagsBits.AddReactions,
      PermissionFlagsBits.AttachFiles,
      PermissionFlagsBits.EmbedLinks,
      PermissionFlagsBits.UseExternalEmojis,
      PermissionFlagsBits.Connect,
      PermissionFlagsBits.Speak,
      PermissionFlagsBits.SendMessagesInThreads,
      PermissionFlagsBits.CreatePublicThreads,
      PermissionFlagsBits.ChangeNickname,
    ),
  });
  addRole({ id: IDS.roles.oldRole, name: 'Season 1', position: 1, color: 0x95a5a6 });
  addRole({ id: IDS.roles.member, name: 'Members', position: 2, color: 0x3498db });
  addRole({ id: IDS.roles.regular, name: 'Regulars', position: 3, color: 0x2ecc71, hoist: true });
  addRole({
    id: IDS.roles.musicBotRole,
    name: 'Songbird',
    position: 4,
    managed: true,
    permissions: ALL(PermissionFlagsBits.ViewChannel, PermissionFlagsBits.SendMessages, PermissionFlagsBits.Connect),
    tags: { bot_id: IDS.musicBot },
  });
  addRole({
    id: IDS.roles.moderator,
    name: 'Moderators',
    position: 5,
    color: 0xe67e22,
    hoist: true,
    mentionable: true,
    permissions: ALL(
      PermissionFlagsBits.KickMembers,
      PermissionFlagsBits.BanMembers,
      PermissionFlagsBits.ModerateMembers,
      PermissionFlagsBits.ManageMessages,
      PermissionFlagsBits.ManageThreads,
      PermissionFlagsBits.ViewAuditLog,
      PermissionFlagsBits.ManageNicknames,
    ),
  });
  addRole({
    id: IDS.roles.botRole,
    name: 'Guildhall',
    position: 6,
    managed: true,
    permissions: ALL(PermissionFlagsBits.Administrator),
    tags: { bot_id: IDS.bot },
  });
  addRole({
    id: IDS.roles.admin,
    name: 'Admins',
    position: 7,
    color: 0xe74c3c,
    hoist: true,
    permissions: ALL(PermissionFlagsBits.Administrator),
  });

  const channels = new Map<string, GuildChannel>();
  const add = (c: GuildChannel) => channels.set(c.id, c);
  add(category(IDS.categories.info, 'Information', 0));
  add(category(IDS.categories.community, 'Community', 1));
  add(category(IDS.categories.support, 'Support', 2));
  add(category(IDS.categories.staff, 'Staff', 3, staffOnly()));
  add(textChannel(IDS.channels.rules, 'rules', IDS.categories.info, 0, { topic: 'Read before posting.' }));
  const announcements: APINewsChannel & { guild_id: string } = {
    ...textChannel(IDS.channels.announcements, 'announcements', IDS.categories.info, 1),
    type: ChannelType.GuildAnnouncement,
  };
  add(announcements);
  add(textChannel(IDS.channels.general, 'general', IDS.categories.community, 2, { topic: 'Say hi!' }));
  add(textChannel(IDS.channels.offTopic, 'off-topic', IDS.categories.community, 3));
  add(textChannel(IDS.channels.media, 'media', IDS.categories.community, 4, { rate_limit_per_user: 10 }));
  add(forum());
  add(textChannel(IDS.channels.oldMemes, 'old-memes', IDS.categories.community, 6));
  add(voice());
  add(textChannel(IDS.channels.tickets, 'tickets', IDS.categories.support, 7, { topic: 'Need help? Open a ticket.' }));
  add(textChannel(IDS.channels.modLog, 'mod-log', IDS.categories.staff, 8, { permission_overwrites: staffOnly() }));
  add(
    textChannel(IDS.channels.staffChat, 'staff-chat', IDS.categories.staff, 9, { permission_overwrites: staffOnly() }),
  );

  const people = new Map<string, Person>();
  const users = new Map<string, APIUser>();
  const addPerson = (user: APIUser, roleIds: string[], joined: Date, activity: number, nick: string | null = null) => {
    users.set(user.id, user);
    people.set(user.id, { member: makeMember(user, roleIds, joined, nick), activity });
  };
  addPerson(
    makeUser(IDS.owner, 'Rowan', rng),
    [IDS.roles.admin, IDS.roles.regular],
    new Date('2021-06-01T18:00:00Z'),
    4,
  );
  addPerson(makeUser(IDS.admin, 'Selma', rng), [IDS.roles.admin], new Date('2021-06-02T08:00:00Z'), 5, 'Selma (admin)');
  addPerson(
    makeUser(IDS.moderator, 'Dario', rng),
    [IDS.roles.moderator, IDS.roles.regular],
    new Date('2021-07-11T20:00:00Z'),
    6,
  );
  addPerson(makeUser(IDS.bot, 'Guildhall', rng, true), [IDS.roles.botRole], new Date('2024-02-01T10:00:00Z'), 0);
  addPerson(
    makeUser(IDS.musicBot, 'Songbird', rng, true),
    [IDS.roles.musicBotRole],
    new Date('2021-06-02T10:00:00Z'),
    0,
  );
  const joinedFrom = Date.parse('2021-06-05T00:00:00Z');
  const joinedTo = Date.parse('2025-03-10T00:00:00Z');
  for (let i = 0; i < 55; i++) {
    const joined = new Date(joinedFrom + Math.floor(rng.next() * (joinedTo - joinedFrom)));
    const created = new Date(joined.getTime() - rng.int(1, 900) * 86_400_000);
    const user = makeUser(clock.next(created), NAMES[i], rng);
    const roleIds = [
      IDS.roles.member,
      ...(rng.chance(0.3) ? [IDS.roles.regular] : []),
      ...(rng.chance(0.15) ? [IDS.roles.oldRole] : []),
    ];
    addPerson(user, roleIds, joined, rng.chance(0.2) ? rng.int(8, 20) : rng.int(1, 5));
  }

  const bans = new Map<string, { user: APIUser; reason: string | null }>();
  for (const [i, reason] of ['Scam links in DMs', 'Raid account'].entries()) {
    const user = makeUser(clock.next(new Date(`2024-0${i + 5}-01T00:00:00Z`)), NAMES[NAMES.length - 1 - i], rng);
    users.set(user.id, user);
    bans.set(user.id, { user, reason });
  }

  const emojis = new Map<string, APIEmoji>();
  for (const name of ['pog', 'kekw', 'blobwave', 'catjam', 'oldlogo', 'heart_guild']) {
    const id = clock.next(new Date('2022-03-01T12:00:00Z'));
    emojis.set(id, {
      id,
      name,
      roles: [],
      user: users.get(IDS.admin),
      require_colons: true,
      managed: false,
      animated: name === 'catjam',
      available: true,
    });
  }

  return {
    roles,
    channels,
    threads: new Map(),
    people,
    bans,
    emojis,
    messages: new Map(),
    users,
    description: 'A friendly place for players of all kinds.',
  };
}
