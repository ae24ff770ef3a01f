import { BRIDGE_INTENTS } from '@guildhall/shared';
import {
  type APIAuditLogChange,
  type APIAuditLogEntry,
  type APIAuditLogOptions,
  type APIEmoji,
  type APIGuild,
  type APIGuildMember,
  type APIMessage,
  type APITextChannel,
  type APIThreadChannel,
  AuditLogEvent,
  type ChannelFlags,
  ChannelType,
  ComponentType,
  GatewayDispatchEvents,
  type GatewayDispatchPayload,
  type GatewayGuildCreateDispatchData,
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  GuildFeature,
  GuildMFALevel,
  GuildNSFWLevel,
  GuildPremiumTier,
  GuildSystemChannelFlags,
  GuildVerificationLevel,
  InteractionContextType,
  InteractionType,
  Locale,
  MessageFlags,
  PermissionFlagsBits,
  ReactionType,
  ThreadAutoArchiveDuration,
  type ThreadMemberFlags,
} from 'discord-api-types/v10';
import { gatewayMemberList, memberChunks } from '../gateway/guildCreate';
import { fullRole } from '../seed';
import { DAY_START, IDS, TICKET_TYPE_ID } from './cast';
import { DAY_SHAPE, FIXTURE_SEED, randomDayTime, ticketPanel } from './drive';
import { buildMessage, type MessageSpec } from './messages';
import { Random } from './random';
import { Recorder } from './recorder';
import { SnowflakeClock } from './snowflakes';
import { messageText, NAMES, sentence, spamText } from './text';
import { discordTime, initialWorld, makeMember, makeUser, type Person, textChannel, type World } from './world';

/**
 * Intents of the session that records the day: the bridge's (guilds, members, moderation, messages with content,
 * expressions, reactions), so the day is what the bridge receives.
 */
export const RECORDING_INTENTS = BRIDGE_INTENTS;

/** Discord's default `large_threshold` (what IDENTIFY gets when the client sends none). */
const DEFAULT_LARGE_THRESHOLD = 50;

/** Who did what during the day (ids), for tests to assert on. */
export interface DayFacts {
  joined: string[];
  left: string[];
  spammer: string;
  spamMessages: string[];
  timedOut: { user: string; until: string };
  kicked: string;
  bannedByModerator: string;
  bannedByBot: string;
  unbanned: string;
  forumPost: { thread: string; starterMessage: string };
  ticket: { opener: string; componentInteraction: string; modalInteraction: string };
  eventTeamRole: string;
  createdChannel: string;
  deletedChannel: string;
  deletedRole: string;
  createdEmoji: string;
  deletedEmoji: string;
}

/** The generated day: its dispatches in order, the guild at the start and at the end, and the notable facts. */
export interface GuildDay {
  payloads: GatewayDispatchPayload[];
  start: World;
  end: World;
  facts: DayFacts;
}

const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);

/** Deep copy of a world (plain data in maps). */
function cloneWorld(w: World): World {
  return structuredClone(w);
}

/**
 * Generates the fixture guild's day deterministically from `FIXTURE_SEED`, starting at `dayStart` (UTC midnight
 * 2025-03-14 for the recorded file; tests and the demo use a day that ends now, so its messages are within the
 * 7-day search window). The guild, its people, roles and channels keep their ids whatever the day.
 */
export function generateGuildDay(dayStart: Date = DAY_START): GuildDay {
  const at = (h: number, m: number, s = 0, ms = 0) =>
    new Date(dayStart.getTime() + ((h * 60 + m) * 60 + s) * 1000 + ms);
  const rng = new Random(FIXTURE_SEED);
  const clock = new SnowflakeClock();
  const world = initialWorld(rng, clock);
  const start = cloneWorld(world);
  const rec = new Recorder();
  const agenda: Array<{ at: number; n: number; run: () => void }> = [];
  const schedule = (when: Date, run: () => void) => agenda.push({ at: when.getTime(), n: agenda.length, run });
  const person = (id: string) => world.people.get(id)!;
  const present = () => [...world.people.values()].filter((p) => !p.member.user.bot);
  const canChat = (p: Person, when: Date) =>
    !p.member.communication_disabled_until || Date.parse(p.member.communication_disabled_until) <= when.getTime();
  const recent: APIMessage[] = [];
  const reactionsGiven: Array<{ message: APIMessage; user: string; emoji: string }> = [];

  const audit = (
    when: Date,
    actionType: AuditLogEvent,
    userId: string,
    targetId: string | null,
    extra: { changes?: APIAuditLogChange[]; options?: APIAuditLogOptions; reason?: string } = {},
  ) => {
    const entry: APIAuditLogEntry & { guild_id: string } = {
      id: clock.next(plus(when, 350)),
      user_id: userId,
      target_id: targetId,
      action_type: actionType,
      ...(extra.changes ? { changes: extra.changes } : {}),
      ...(extra.options ? { options: extra.options } : {}),
      ...(extra.reason ? { reason: extra.reason } : {}),
      guild_id: IDS.guild,
    };
    rec.emit(GatewayDispatchEvents.GuildAuditLogEntryCreate, entry);
  };

  const store = (message: APIMessage) => {
    const list = world.messages.get(message.channel_id) ?? [];
    list.push(message);
    world.messages.set(message.channel_id, list);
    recent.push(message);
    if (recent.length > 60) recent.shift();
  };
  const post = (spec: MessageSpec) => {
    const { dispatch, message } = buildMessage(rng, clock, spec);
    rec.emit(GatewayDispatchEvents.MessageCreate, dispatch);
    store(message);
    const channel = (world.channels.get(spec.channelId) ?? world.threads.get(spec.channelId)) as
      | { last_message_id?: string | null }
      | undefined;
    if (channel && 'last_message_id' in channel) channel.last_message_id = message.id;
    return message;
  };
  const removeMessage = (message: APIMessage) => {
    const list = world.messages.get(message.channel_id) ?? [];
    world.messages.set(
      message.channel_id,
      list.filter((m) => m.id !== message.id),
    );
    const i = recent.findIndex((m) => m.id === message.id);
    if (i >= 0) recent.splice(i, 1);
  };
  const memberUpdate = (p: Person) =>
    rec.emit(GatewayDispatchEvents.GuildMemberUpdate, {
      guild_id: IDS.guild,
      ...p.member,
      joined_at: p.member.joined_at,
      avatar: p.member.avatar ?? null,
      banner: p.member.banner ?? null,
    });
  const removeMember = (userId: string) => {
    const p = person(userId);
    world.people.delete(userId);
    rec.emit(GatewayDispatchEvents.GuildMemberRemove, { guild_id: IDS.guild, user: p.member.user });
  };
  const guildObject = (): APIGuild => guildFields(world);

  /*
   * The recording session connects at the start of the day: GUILD_CREATE as the simulator gateway sends it for the
   * bridge's intents (a large guild without GUILD_PRESENCES: only the bot as member), then the bot requests every
   * member (op 8) and gets them in GUILD_MEMBERS_CHUNK.
   */
  schedule(dayStart, () => {
    const members = [...world.people.values()].map((p) => p.member);
    const list = gatewayMemberList(members, IDS.bot, RECORDING_INTENTS, DEFAULT_LARGE_THRESHOLD);
    rec.emit(GatewayDispatchEvents.GuildCreate, guildCreate(world, list));
    const request = { guild_id: IDS.guild, query: '', limit: 0, nonce: 'guild-day' };
    for (const chunk of memberChunks(IDS.guild, members, request))
      rec.emit(GatewayDispatchEvents.GuildMembersChunk, chunk);
  });

  /* The forum post from the day before is open, so GUILD_CREATE lists it in `threads`. */
  world.threads.set(
    IDS.olderPost,
    forumThread(
      IDS.olderPost,
      'Weekly game night on Fridays?',
      IDS.admin,
      [IDS.tags.idea],
      new Date('2025-03-13T19:30:00Z'),
    ),
  );

  /* Regular chat, spread over the day with more in the evening (UTC). */
  const chatChannels = DAY_SHAPE.chatChannels;
  const staff = [IDS.owner, IDS.admin, IDS.moderator];
  let newPostId: string | null = null;
  const randomTime = () => randomDayTime(rng, at);
  for (let i = 0; i < DAY_SHAPE.chatMessages; i++) {
    const when = randomTime();
    schedule(when, () => {
      let channelId = rng.weighted(chatChannels, (c) => c.weight).id;
      if (channelId === 'forum-post') channelId = newPostId ?? IDS.channels.general;
      const pool = channelId === IDS.channels.staffChat ? staff.map(person) : present();
      const author = rng.weighted(
        pool.filter((p) => canChat(p, when)),
        (p) => p.activity,
      );
      const history = world.messages.get(channelId) ?? [];
      const replyTo = history.length && rng.chance(0.15) ? rng.pick(history.slice(-20)) : undefined;
      const mentioned = rng.chance(0.08) ? rng.sample(present(), 1).filter((p) => p !== author) : [];
      const images =
        channelId === IDS.channels.media ? (rng.chance(0.7) ? rng.int(1, 3) : 0) : rng.chance(0.03) ? 1 : 0;
      const text = messageText(rng);
      const content = mentioned.length
        ? `<@${mentioned[0].member.user.id}> ${text}`
        : images && rng.chance(0.4)
          ? ''
          : text;
      post({ channelId, author, content, at: when, replyTo, mentions: mentioned, images });
    });
  }

  /* Members fixing typos: MESSAGE_UPDATE with the full message, new content and `edited_timestamp`. */
  for (let i = 0; i < DAY_SHAPE.selfEdits; i++) {
    const when = randomTime();
    schedule(when, () => {
      const candidates = recent.filter((m) => !m.author.bot && m.content && world.people.has(m.author.id));
      if (!candidates.length) return;
      const message = rng.pick(candidates);
      message.content = `${message.content} (${rng.pick(['edit', 'typo', 'fixed', 'nvm'])}: ${sentence(rng)})`;
      message.edited_timestamp = discordTime(when);
      const author = person(message.author.id);
      rec.emit(GatewayDispatchEvents.MessageUpdate, {
        ...message,
        guild_id: IDS.guild,
        member: { ...memberOf(author), joined_at: author.member.joined_at ?? discordTime(dayStart) },
        mentions: message.mentions.map((u) => ({
          ...u,
          ...(world.people.has(u.id) ? { member: memberOf(person(u.id)) } : {}),
        })),
      });
    });
  }

  /* Members deleting their own messages: MESSAGE_DELETE, no audit-log entry. */
  for (let i = 0; i < DAY_SHAPE.selfDeletes; i++) {
    schedule(randomTime(), () => {
      const candidates = recent.filter((m) => !m.author.bot && m.id !== newPostId);
      if (!candidates.length) return;
      const message = rng.pick(candidates);
      removeMessage(message);
      rec.emit(GatewayDispatchEvents.MessageDelete, {
        id: message.id,
        channel_id: message.channel_id,
        guild_id: IDS.guild,
      });
    });
  }

  /* Reactions on recent messages; a few are taken back. */
  for (let i = 0; i < DAY_SHAPE.reactionsGiven; i++) {
    const when = randomTime();
    schedule(when, () => {
      const candidates = recent.filter((m) => m.id !== newPostId);
      if (!candidates.length) return;
      const message = rng.pick(candidates);
      const reactor = rng.pick(present());
      if (rng.chance(0.08) && reactionsGiven.length) {
        const given = reactionsGiven.splice(rng.int(0, reactionsGiven.length - 1), 1)[0];
        rec.emit(GatewayDispatchEvents.MessageReactionRemove, {
          user_id: given.user,
          channel_id: given.message.channel_id,
          message_id: given.message.id,
          guild_id: IDS.guild,
          emoji: emojiRef(world, given.emoji),
          burst: false,
          type: ReactionType.Normal,
        });
        return;
      }
      const emoji = rng.chance(0.2) ? rng.pick([...world.emojis.keys()]) : rng.pick(DAY_SHAPE.reactions);
      reactionsGiven.push({ message, user: reactor.member.user.id, emoji });
      rec.emit(GatewayDispatchEvents.MessageReactionAdd, reactionAdd(world, message, reactor, emoji));
    });
  }

  /* Morning announcement with @everyone. */
  schedule(at(7, 45, 12), () =>
    post({
      channelId: IDS.channels.announcements,
      author: person(IDS.admin),
      content: '@everyone Game night is tonight at 20:00 UTC in the Lounge! Bring snacks and good vibes.',
      at: at(7, 45, 12),
      mentionEveryone: true,
    }),
  );

  /* Guild settings: the admin changes the description. */
  schedule(at(9, 5), () => {
    const old = world.description;
    world.description = 'A friendly place for players of all kinds. Game night every Friday!';
    rec.emit(GatewayDispatchEvents.GuildUpdate, guildObject());
    audit(at(9, 5), AuditLogEvent.GuildUpdate, IDS.admin, IDS.guild, {
      changes: [{ key: 'description', old_value: old ?? undefined, new_value: world.description }],
    });
  });

  /* Roles: create "Event Team", recolour it, give it to three members, delete the old "Season 1" role. */
  let eventTeamRole = '';
  schedule(at(10, 0), () => {
    eventTeamRole = clock.next(at(10, 0));
    const role = fullRole({ id: eventTeamRole, name: 'new role', position: 1 });
    world.roles.set(role.id, role);
    rec.emit(GatewayDispatchEvents.GuildRoleCreate, { guild_id: IDS.guild, role });
    audit(at(10, 0), AuditLogEvent.RoleCreate, IDS.admin, role.id, {
      changes: [
        { key: 'name', new_value: 'new role' },
        { key: 'permissions', new_value: '0' },
        { key: 'color', new_value: 0 },
        { key: 'hoist', new_value: false },
        { key: 'mentionable', new_value: false },
      ],
    });
  });
  schedule(at(10, 2), () => {
    const role = fullRole({
      ...world.roles.get(eventTeamRole)!,
      name: 'Event Team',
      color: 0x9b59b6,
      hoist: true,
      mentionable: true,
    });
    world.roles.set(role.id, role);
    rec.emit(GatewayDispatchEvents.GuildRoleUpdate, { guild_id: IDS.guild, role });
    audit(at(10, 2), AuditLogEvent.RoleUpdate, IDS.admin, role.id, {
      changes: [
        { key: 'name', old_value: 'new role', new_value: 'Event Team' },
        { key: 'color', old_value: 0, new_value: 0x9b59b6 },
        { key: 'hoist', old_value: false, new_value: true },
        { key: 'mentionable', old_value: false, new_value: true },
      ],
    });
  });
  schedule(at(10, 5), () => {
    const chosen = rng.sample(
      present().filter((p) => !staff.includes(p.member.user.id)),
      3,
    );
    chosen.forEach((p, i) => {
      p.member.roles = [...p.member.roles, eventTeamRole];
      memberUpdate(p);
      audit(at(10, 5, i * 7), AuditLogEvent.MemberRoleUpdate, IDS.admin, p.member.user.id, {
        changes: [{ key: '$add', new_value: [{ id: eventTeamRole, name: 'Event Team' }] }],
      });
    });
  });
  schedule(at(10, 10), () => {
    const role = world.roles.get(IDS.roles.oldRole)!;
    world.roles.delete(role.id);
    for (const p of world.people.values()) p.member.roles = p.member.roles.filter((r) => r !== role.id);
    rec.emit(GatewayDispatchEvents.GuildRoleDelete, { guild_id: IDS.guild, role_id: role.id });
    audit(at(10, 10), AuditLogEvent.RoleDelete, IDS.admin, role.id, {
      changes: [
        { key: 'name', old_value: role.name },
        { key: 'color', old_value: role.color },
        { key: 'permissions', old_value: role.permissions },
        { key: 'hoist', old_value: role.hoist },
        { key: 'mentionable', old_value: role.mentionable },
      ],
    });
  });

  /* Channels: create #event-planning, change #general's topic, delete #old-memes. */
  let createdChannel = '';
  schedule(at(10, 20), () => {
    createdChannel = clock.next(at(10, 20));
    const channel = textChannel(createdChannel, 'event-planning', IDS.categories.community, 6, {
      topic: 'Plan game nights here.',
    });
    world.channels.set(channel.id, channel);
    rec.emit(GatewayDispatchEvents.ChannelCreate, channel);
    audit(at(10, 20), AuditLogEvent.ChannelCreate, IDS.admin, channel.id, {
      changes: [
        { key: 'name', new_value: 'event-planning' },
        { key: 'type', new_value: ChannelType.GuildText },
        { key: 'nsfw', new_value: false },
        { key: 'rate_limit_per_user', new_value: 0 },
        { key: 'permission_overwrites', new_value: [] },
      ],
    });
  });
  schedule(at(10, 25), () => {
    const general = world.channels.get(IDS.channels.general) as APITextChannel & { guild_id: string };
    const old = general.topic ?? null;
    general.topic = 'Say hi! Keep it friendly; see #rules.';
    rec.emit(GatewayDispatchEvents.ChannelUpdate, general);
    audit(at(10, 25), AuditLogEvent.ChannelUpdate, IDS.admin, general.id, {
      changes: [{ key: 'topic', old_value: old ?? undefined, new_value: general.topic }],
    });
  });
  schedule(at(10, 30), () => {
    const channel = world.channels.get(IDS.channels.oldMemes)!;
    world.channels.delete(channel.id);
    world.messages.delete(channel.id);
    rec.emit(GatewayDispatchEvents.ChannelDelete, channel);
    audit(at(10, 30), AuditLogEvent.ChannelDelete, IDS.admin, channel.id, {
      changes: [
        { key: 'name', old_value: channel.name },
        { key: 'type', old_value: channel.type },
        { key: 'nsfw', old_value: false },
        { key: 'rate_limit_per_user', old_value: 0 },
        { key: 'permission_overwrites', old_value: [] },
      ],
    });
  });

  /* Emojis: upload, rename, delete (each GUILD_EMOJIS_UPDATE carries the full list). */
  let createdEmoji = '';
  let deletedEmoji = '';
  const emojisUpdate = () =>
    rec.emit(GatewayDispatchEvents.GuildEmojisUpdate, { guild_id: IDS.guild, emojis: [...world.emojis.values()] });
  schedule(at(11, 30), () => {
    createdEmoji = clock.next(at(11, 30));
    const emoji: APIEmoji = {
      id: createdEmoji,
      name: 'partyparrot',
      roles: [],
      user: person(IDS.admin).member.user,
      require_colons: true,
      managed: false,
      animated: true,
      available: true,
    };
    world.emojis.set(createdEmoji, emoji);
    emojisUpdate();
    audit(at(11, 30), AuditLogEvent.EmojiCreate, IDS.admin, emoji.id, {
      changes: [{ key: 'name', new_value: 'partyparrot' }],
    });
  });
  schedule(at(11, 32), () => {
    const emoji = [...world.emojis.values()].find((e) => e.name === 'pog')!;
    emoji.name = 'poggers';
    emojisUpdate();
    audit(at(11, 32), AuditLogEvent.EmojiUpdate, IDS.admin, emoji.id!, {
      changes: [{ key: 'name', old_value: 'pog', new_value: 'poggers' }],
    });
  });
  schedule(at(11, 35), () => {
    const emoji = [...world.emojis.values()].find((e) => e.name === 'oldlogo')!;
    deletedEmoji = emoji.id!;
    world.emojis.delete(deletedEmoji);
    emojisUpdate();
    audit(at(11, 35), AuditLogEvent.EmojiDelete, IDS.admin, deletedEmoji, {
      changes: [{ key: 'name', old_value: 'oldlogo' }],
    });
  });

  /* A webhook for #announcements, and its first post. */
  schedule(at(12, 10), () => {
    rec.emit(GatewayDispatchEvents.WebhooksUpdate, { guild_id: IDS.guild, channel_id: IDS.channels.announcements });
    audit(at(12, 10), AuditLogEvent.WebhookCreate, IDS.admin, IDS.webhook, {
      changes: [
        { key: 'type', new_value: 1 },
        { key: 'name', new_value: 'Patch Notes' },
        { key: 'channel_id', new_value: IDS.channels.announcements },
      ],
    });
  });
  schedule(at(12, 30), () => {
    const hook: Person = {
      member: makeMember({ ...makeUser(IDS.webhook, 'Patch Notes', rng, true), discriminator: '0000' }, [], dayStart),
      activity: 0,
    };
    const { dispatch, message } = buildMessage(rng, clock, {
      channelId: IDS.channels.announcements,
      author: hook,
      content: 'Patch 4.2 is live: new map rotation, balance changes and bug fixes.',
      at: at(12, 30),
    });
    const { member: _member, ...withoutMember } = dispatch;
    rec.emit(GatewayDispatchEvents.MessageCreate, { ...withoutMember, webhook_id: IDS.webhook });
    store({ ...message, webhook_id: IDS.webhook });
  });

  /* A spammer joins, floods #general, gets purged (bulk delete) and banned by the moderator. */
  const spammerUser = makeUser(clock.next(new Date('2025-03-13T22:00:00Z')), 'FreeGifts', rng);
  const spamMessages: string[] = [];
  schedule(at(13, 2), () => join(spammerUser, at(13, 2)));
  for (let i = 0; i < 12; i++) {
    const when = at(13, 3, i * 11);
    schedule(when, () => {
      const m = post({
        channelId: IDS.channels.general,
        author: person(spammerUser.id),
        content: spamText(rng),
        at: when,
      });
      spamMessages.push(m.id);
    });
  }
  schedule(at(13, 6, 10), () => {
    for (const id of spamMessages) {
      const m = (world.messages.get(IDS.channels.general) ?? []).find((x) => x.id === id);
      if (m) removeMessage(m);
    }
    rec.emit(GatewayDispatchEvents.MessageDeleteBulk, {
      ids: [...spamMessages],
      channel_id: IDS.channels.general,
      guild_id: IDS.guild,
    });
    audit(at(13, 6, 10), AuditLogEvent.MessageBulkDelete, IDS.moderator, IDS.channels.general, {
      options: { count: String(spamMessages.length) },
    });
  });
  schedule(at(13, 6, 40), () => ban(spammerUser.id, IDS.moderator, 'Spam: fake nitro links', at(13, 6, 40)));

  /* Newcomers join through the day; a moderator gives each the Members role a few minutes later. */
  const joined: string[] = [spammerUser.id];
  for (let i = 0; i < 14; i++) {
    const when = randomTime();
    const user = makeUser(clock.next(new Date(when.getTime() - rng.int(2, 2000) * 86_400_000)), NAMES[55 + i], rng);
    joined.push(user.id);
    schedule(when, () => join(user, when));
    const later = plus(when, rng.int(2, 12) * 60_000);
    schedule(later, () => {
      const p = world.people.get(user.id);
      if (!p) return;
      p.member.roles = [IDS.roles.member];
      memberUpdate(p);
      audit(later, AuditLogEvent.MemberRoleUpdate, IDS.moderator, user.id, {
        changes: [{ key: '$add', new_value: [{ id: IDS.roles.member, name: 'Members' }] }],
      });
    });
  }

  /* Four members leave on their own. */
  const regulars = [...world.people.values()].filter((p) => !p.member.user.bot && !staff.includes(p.member.user.id));
  const leavers = rng.sample(regulars, 4).map((p) => p.member.user.id);
  const [kicked, botBanned, timedOutUser, ticketOpener, nickChanger] = rng
    .sample(
      regulars.filter((p) => !leavers.includes(p.member.user.id)),
      5,
    )
    .map((p) => p.member.user.id);
  for (const id of leavers) {
    const when = randomTime();
    schedule(when, () => world.people.has(id) && removeMember(id));
  }

  /* A forum post with tags, its starter message, replies, votes, and a moderator tagging it Planned. */
  const postAuthor = rng.pick(
    regulars.filter((p) => ![...leavers, kicked, botBanned, timedOutUser].includes(p.member.user.id)),
  ).member.user.id;
  schedule(at(14, 20), () => {
    newPostId = clock.next(at(14, 20));
    const thread = forumThread(newPostId, 'Add a #looking-for-group channel', postAuthor, [IDS.tags.idea], at(14, 20));
    world.threads.set(thread.id, thread);
    rec.emit(GatewayDispatchEvents.ThreadCreate, {
      ...thread,
      newly_created: true,
      member: {
        id: thread.id,
        user_id: postAuthor,
        join_timestamp: discordTime(at(14, 20)),
        flags: 0 as ThreadMemberFlags,
      },
    });
    post({
      id: newPostId,
      channelId: newPostId,
      author: person(postAuthor),
      content:
        'It is hard to find people to play with at odd hours. A channel where you can post "LFG 2 players, EU, ranked" would help a lot. Vote 👍 if you want it!',
      at: at(14, 20, 0, 120),
    });
  });
  const voters = rng.sample(
    regulars.filter((p) => p.member.user.id !== postAuthor && !leavers.includes(p.member.user.id)),
    11,
  );
  voters.forEach((voter, i) => {
    const when = at(14, 25 + i * 4);
    schedule(when, () => {
      if (!world.people.has(voter.member.user.id)) return;
      const starter = (world.messages.get(newPostId!) ?? [])[0];
      rec.emit(GatewayDispatchEvents.MessageReactionAdd, reactionAdd(world, starter, voter, i < 9 ? '👍' : '👎'));
    });
  });
  schedule(at(15, 40), () => {
    const voter = voters[10];
    const starter = (world.messages.get(newPostId!) ?? [])[0];
    rec.emit(GatewayDispatchEvents.MessageReactionRemove, {
      user_id: voter.member.user.id,
      channel_id: starter.channel_id,
      message_id: starter.id,
      guild_id: IDS.guild,
      emoji: { id: null, name: '👎' },
      burst: false,
      type: ReactionType.Normal,
    });
  });
  schedule(at(18, 0), () => {
    const thread = world.threads.get(newPostId!)!;
    const old = thread.applied_tags ?? [];
    thread.applied_tags = [...old, IDS.tags.planned];
    rec.emit(GatewayDispatchEvents.ThreadUpdate, thread);
    audit(at(18, 0), AuditLogEvent.ThreadUpdate, IDS.moderator, thread.id, {
      changes: [appliedTagsChange(old, thread.applied_tags)],
    });
  });

  /* A member opens a ticket from the panel: button (type 3) then the questions modal (type 5). */
  const componentInteraction = clock.next(at(15, 12, 3));
  const modalInteraction = clock.next(at(15, 13, 41));
  schedule(at(15, 12, 3), () => {
    const opener = person(ticketOpener);
    rec.emit(GatewayDispatchEvents.InteractionCreate, {
      ...interactionBase(world, componentInteraction, opener, rng),
      type: InteractionType.MessageComponent,
      data: { custom_id: `ticket:open:${TICKET_TYPE_ID}`, component_type: ComponentType.Button },
      message: panelMessage(world),
    });
  });
  schedule(at(15, 13, 41), () => {
    const opener = person(ticketOpener);
    rec.emit(GatewayDispatchEvents.InteractionCreate, {
      ...interactionBase(world, modalInteraction, opener, rng),
      type: InteractionType.ModalSubmit,
      data: {
        custom_id: `ticket:form:${TICKET_TYPE_ID}`,
        components: [
          {
            type: ComponentType.ActionRow,
            id: 1,
            components: [
              {
                type: ComponentType.TextInput,
                id: 2,
                custom_id: 'ticket:answer:0',
                value: 'I cannot see the event channel',
              },
            ],
          },
          {
            type: ComponentType.ActionRow,
            id: 3,
            components: [
              {
                type: ComponentType.TextInput,
                id: 4,
                custom_id: 'ticket:answer:1',
                value:
                  'Since this morning the #event-planning channel is missing for me, but my friend can see it. I have the Members role.',
              },
            ],
          },
        ],
      },
      message: panelMessage(world),
    });
  });

  /* A member gets heated, one message is removed by the moderator, then a one-hour timeout. */
  const rude = ['this is the worst server ever', 'mods are clueless lol', 'whatever, nobody asked you'];
  const rudeIds: string[] = [];
  rude.forEach((content, i) => {
    const when = at(16, 15 + i * 2, 5);
    schedule(when, () =>
      rudeIds.push(post({ channelId: IDS.channels.general, author: person(timedOutUser), content, at: when }).id),
    );
  });
  schedule(at(16, 19, 30), () => {
    const message = (world.messages.get(IDS.channels.general) ?? []).find((m) => m.id === rudeIds[2])!;
    removeMessage(message);
    rec.emit(GatewayDispatchEvents.MessageDelete, {
      id: message.id,
      channel_id: message.channel_id,
      guild_id: IDS.guild,
    });
    audit(at(16, 19, 30), AuditLogEvent.MessageDelete, IDS.moderator, timedOutUser, {
      options: { channel_id: IDS.channels.general, count: '1' },
    });
  });
  const timeoutUntil = discordTime(at(17, 20));
  schedule(at(16, 20), () => {
    const p = person(timedOutUser);
    p.member.communication_disabled_until = timeoutUntil;
    memberUpdate(p);
    audit(at(16, 20), AuditLogEvent.MemberUpdate, IDS.moderator, timedOutUser, {
      changes: [{ key: 'communication_disabled_until', new_value: timeoutUntil }],
      reason: 'Insulting other members (1 hour)',
    });
  });

  /* A member changes their own nickname. */
  schedule(at(17, 5), () => {
    const p = person(nickChanger);
    const old = p.member.nick ?? undefined;
    p.member.nick = `${p.member.user.global_name} 🎮`;
    memberUpdate(p);
    audit(at(17, 5), AuditLogEvent.MemberUpdate, nickChanger, nickChanger, {
      changes: [{ key: 'nick', old_value: old, new_value: p.member.nick }],
    });
  });

  /* The music bot's now-playing messages in the evening. */
  for (let i = 0; i < 6; i++) {
    const when = at(20, 2 + i * 7, 30);
    schedule(when, () =>
      post({
        channelId: IDS.channels.offTopic,
        author: person(IDS.musicBot),
        content: `🎶 Now playing: **${rng.pick(['Lo-fi Beats', 'Synthwave Mix', 'Game OST Classics', 'Chill Acoustic'])}** (requested by <@${rng.pick(present()).member.user.id}>)`,
        at: when,
        flags: MessageFlags.SuppressEmbeds,
      }),
    );
  }

  /* The admin kicks a member; Guildhall's bot bans another for the moderator; the admin lifts an old ban. */
  schedule(at(19, 40), () => {
    if (!world.people.has(kicked)) return;
    removeMember(kicked);
    audit(at(19, 40), AuditLogEvent.MemberKick, IDS.admin, kicked, { reason: 'Alt account of a banned user' });
  });
  schedule(at(21, 15), () =>
    ban(botBanned, IDS.bot, 'Case 14: Repeated harassment after warnings (by Dario)', at(21, 15)),
  );
  const unbanned = [...world.bans.keys()][0];
  schedule(at(22, 30), () => {
    const entry = world.bans.get(unbanned)!;
    world.bans.delete(unbanned);
    rec.emit(GatewayDispatchEvents.GuildBanRemove, { guild_id: IDS.guild, user: entry.user });
    audit(at(22, 30), AuditLogEvent.MemberBanRemove, IDS.admin, unbanned, { reason: 'Appeal accepted' });
  });

  function join(user: typeof spammerUser, when: Date) {
    world.users.set(user.id, user);
    const member = makeMember(user, [], when);
    world.people.set(user.id, { member, activity: 2 });
    rec.emit(GatewayDispatchEvents.GuildMemberAdd, { ...member, guild_id: IDS.guild });
  }
  function ban(userId: string, by: string, reason: string, when: Date) {
    const p = world.people.get(userId);
    const user = p?.member.user ?? world.users.get(userId)!;
    world.bans.set(userId, { user, reason });
    rec.emit(GatewayDispatchEvents.GuildBanAdd, { guild_id: IDS.guild, user });
    if (p) removeMember(userId);
    audit(when, AuditLogEvent.MemberBanAdd, by, userId, { reason });
  }

  agenda.sort((a, b) => a.at - b.at || a.n - b.n);
  for (const item of agenda) item.run();

  return {
    payloads: rec.payloads,
    start,
    end: world,
    facts: {
      joined,
      left: leavers,
      spammer: spammerUser.id,
      spamMessages,
      timedOut: { user: timedOutUser, until: timeoutUntil },
      kicked,
      bannedByModerator: spammerUser.id,
      bannedByBot: botBanned,
      unbanned,
      forumPost: { thread: newPostId!, starterMessage: newPostId! },
      ticket: { opener: ticketOpener, componentInteraction, modalInteraction },
      eventTeamRole,
      createdChannel,
      deletedChannel: IDS.channels.oldMemes,
      deletedRole: IDS.roles.oldRole,
      createdEmoji,
      deletedEmoji,
    },
  };
}

/**
 * The audit-log change of a forum post's tags. The platform records it under the key `applied_tags`, which
 * discord-api-types does not list among its change keys yet, hence the cast.
 */
function appliedTagsChange(old: string[], now: string[]): APIAuditLogChange {
  return { key: 'applied_tags', old_value: old, new_value: now } as unknown as APIAuditLogChange;
}

function memberOf(p: Person) {
  const { user: _user, ...rest } = p.member;
  return { ...rest, joined_at: p.member.joined_at ?? discordTime(DAY_START) };
}

function emojiRef(world: World, emoji: string) {
  const custom = world.emojis.get(emoji);
  return custom ? { id: custom.id, name: custom.name, animated: custom.animated ?? false } : { id: null, name: emoji };
}

function reactionAdd(world: World, message: APIMessage, reactor: Person, emoji: string) {
  return {
    user_id: reactor.member.user.id,
    channel_id: message.channel_id,
    message_id: message.id,
    guild_id: IDS.guild,
    member: reactor.member,
    emoji: emojiRef(world, emoji),
    message_author_id: message.author.id,
    burst: false,
    burst_colors: [],
    type: ReactionType.Normal,
  };
}

function forumThread(id: string, name: string, ownerId: string, tags: string[], created: Date): APIThreadChannel {
  const thread: APIThreadChannel = {
    id,
    type: ChannelType.PublicThread,
    guild_id: IDS.guild,
    parent_id: IDS.channels.suggestions,
    owner_id: ownerId,
    name,
    last_message_id: id,
    rate_limit_per_user: 0,
    flags: 0 as ChannelFlags,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    applied_tags: tags,
    thread_metadata: {
      archived: false,
      archive_timestamp: discordTime(created),
      auto_archive_duration: ThreadAutoArchiveDuration.ThreeDays,
      locked: false,
      create_timestamp: discordTime(created),
    },
  };
  return thread;
}

/** The ticket panel the bot posted in #tickets: an embed and an "Open a ticket" button. */
function panelMessage(world: World): APIMessage {
  return {
    type: 0,
    tts: false,
    pinned: false,
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    flags: 0 as MessageFlags,
    edited_timestamp: null,
    content: '',
    channel_id: IDS.channels.tickets,
    author: world.people.get(IDS.bot)!.member.user,
    attachments: [],
    application_id: IDS.bot,
    ...ticketPanel(),
  } as APIMessage;
}

const ALL_PERMISSIONS = Object.values(PermissionFlagsBits)
  .reduce((a, b) => a | b, 0n)
  .toString();

/** A member's guild-level permissions: @everyone's and their roles' combined; everything with Administrator. */
function memberPermissions(world: World, p: Person): string {
  let bits = BigInt(world.roles.get(IDS.guild)?.permissions ?? '0');
  for (const id of p.member.roles) bits |= BigInt(world.roles.get(id)?.permissions ?? '0');
  return (bits & PermissionFlagsBits.Administrator) === PermissionFlagsBits.Administrator
    ? ALL_PERMISSIONS
    : bits.toString();
}

function interactionBase(world: World, id: string, opener: Person, rng: Random) {
  const tickets = world.channels.get(IDS.channels.tickets)!;
  return {
    id,
    application_id: IDS.bot,
    token: `aW50ZXJhY3Rpb246${id}:${rng.hex(64)}`,
    version: 1 as const,
    guild_id: IDS.guild,
    guild: { id: IDS.guild, locale: Locale.EnglishUS, features: [] },
    channel_id: tickets.id,
    channel: tickets,
    member: { ...opener.member, permissions: memberPermissions(world, opener) },
    app_permissions: ALL_PERMISSIONS,
    locale: Locale.EnglishGB,
    guild_locale: Locale.EnglishUS,
    entitlements: [],
    authorizing_integration_owners: { 0: IDS.guild },
    context: InteractionContextType.Guild,
    attachment_size_limit: 10485760,
  };
}

/** The guild object (GUILD_UPDATE's `d`, and the base of GUILD_CREATE) from the world. */
export function guildFields(world: World): APIGuild {
  const guild: APIGuild = {
    id: IDS.guild,
    name: 'Lantern Hall',
    icon: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
    icon_hash: null,
    splash: null,
    discovery_splash: null,
    owner_id: IDS.owner,
    region: 'deprecated',
    afk_channel_id: null,
    afk_timeout: 300,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: GuildVerificationLevel.Medium,
    default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
    explicit_content_filter: GuildExplicitContentFilter.AllMembers,
    roles: [...world.roles.values()],
    emojis: [...world.emojis.values()],
    stickers: [],
    features: [GuildFeature.Community, GuildFeature.News, GuildFeature.WelcomeScreenEnabled],
    mfa_level: GuildMFALevel.Elevated,
    application_id: null,
    system_channel_id: IDS.channels.general,
    system_channel_flags: GuildSystemChannelFlags.SuppressJoinNotificationReplies,
    rules_channel_id: IDS.channels.rules,
    max_presences: null,
    max_members: 500000,
    vanity_url_code: null,
    description: world.description,
    banner: null,
    premium_tier: GuildPremiumTier.Tier1,
    premium_subscription_count: 3,
    preferred_locale: Locale.EnglishUS,
    public_updates_channel_id: IDS.channels.modLog,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    nsfw_level: GuildNSFWLevel.Default,
    premium_progress_bar_enabled: false,
    hub_type: null,
    safety_alerts_channel_id: IDS.channels.modLog,
    incidents_data: null,
  };
  return guild;
}

function guildCreate(
  world: World,
  memberList: { large: boolean; members: APIGuildMember[] },
): GatewayGuildCreateDispatchData {
  return {
    ...guildFields(world),
    joined_at: discordTime(new Date('2024-02-01T10:00:00Z')),
    large: memberList.large,
    unavailable: false,
    member_count: world.people.size,
    voice_states: [],
    members: memberList.members,
    channels: [...world.channels.values()],
    threads: [...world.threads.values()],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
