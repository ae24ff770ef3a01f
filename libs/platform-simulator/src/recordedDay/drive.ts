import {
  type APIMessage,
  ButtonStyle,
  ChannelType,
  ComponentType,
  EmbedType,
  InteractionResponseType,
  MessageFlags,
  type RESTPostAPIChannelMessageJSONBody,
  ThreadAutoArchiveDuration,
} from 'discord-api-types/v10';
import { PNG } from '../cdn';
import type { FakePlatform } from '../platform';
import type { SeedGuild } from '../types';
import type { UserFile } from '../userActions';
import { IDS, TICKET_TYPE_ID } from './cast';
import { Random } from './random';
import { SnowflakeClock } from './snowflakes';
import { messageText, NAMES, sentence, spamText } from './text';
import { initialWorld, makeUser, type World } from './world';

/** The seed of the day's pseudo-random generator (who says what, when). */
export const FIXTURE_SEED = 20250314;

/** The custom id of the ticket form the panel button opens, and its two text inputs (the tickets service's). */
export const TICKET_FORM = {
  customId: `ticket:form:${TICKET_TYPE_ID}`,
  inputs: ['ticket:answer:0', 'ticket:answer:1'],
} as const;

/**
 * The simulator's time while a day is driven: `startFakePlatform({ clock: { now: () => dayClock.now() } })`, then
 * `driveGuildDay` sets it to each action's time before performing it. Without a set time (or after `release`) it is
 * the wall clock, so a simulator that lives on after the day runs on real time.
 */
export class DayClock {
  constructor(private current: Date | null = null) {}

  /** The simulator's current time. */
  now(): Date {
    return this.current ?? new Date();
  }

  /** Moves the time to `at`. */
  set(at: Date): void {
    this.current = at;
  }

  /** Back to the wall clock. */
  release(): void {
    this.current = null;
  }
}

/** A day being driven through a simulator, part by part (see `guildDayDriver`). */
export interface GuildDayDriver {
  /** Actions of the day after the guild's join. */
  readonly total: number;
  /** Actions performed so far. */
  readonly sent: number;
  /**
   * Performs the next `count` actions (default: all that are left); resolves with how many are left. The first call
   * first seeds the guild as it is at the day's start and, when a bot is connected, waits for its member request.
   */
  play(count?: number): Promise<number>;
  /** Who did what; complete once the whole day was played. */
  readonly facts: DayFacts;
}

/** Who did what during the driven day (ids), for tests to assert on. */
export interface DayFacts {
  joined: string[];
  left: string[];
  spammer: string;
  /** The spammer's messages, all removed by the moderator's bulk delete. */
  spamMessages: string[];
  timedOut: { user: string; until: string };
  nickname: { user: string; nick: string };
  kicked: string;
  bannedByModerator: string;
  bannedByBot: string;
  unbanned: string;
  forumPost: string;
  ticketOpener: string;
  /**
   * The message a member reported with the "Report message" command during the day, and who; `message` is null when
   * the command was not registered or no bot was connected (nothing reported).
   */
  report: { reporter: string; message: string | null };
  /**
   * Whether the admin warned the timed-out member with /warn and timed them out with /timeout (the bot applying it;
   * `timedOut.until` is then the bot's), which happens when the commands are registered and a bot is connected;
   * otherwise there is no warn and the moderator timed them out in the client.
   */
  byCommand: { warn: boolean; timeout: boolean };
  eventTeamRole: string;
  eventTeam: string[];
  createdChannel: string;
  deletedChannel: string;
  deletedRole: string;
  createdEmoji: string;
  renamedEmoji: { id: string; from: string; to: string };
  deletedEmoji: string;
  generalTopic: string;
}

/** The day's shape: relative chat activity per UTC hour and channel, the reactions used, how many of each action. */
export const DAY_SHAPE = {
  hourWeights: [3, 2, 1, 1, 1, 1, 2, 3, 4, 5, 6, 6, 7, 6, 6, 6, 7, 8, 9, 10, 10, 9, 7, 5],
  reactions: ['👍', '😂', '❤️', '🔥', '👀', '🎉', '😮', '💯'],
  chatMessages: 2400,
  selfEdits: 150,
  selfDeletes: 70,
  reactionsGiven: 230,
  /** Where chat goes, weighted; 'forum-post' is the post created during the day (#general before it exists). */
  chatChannels: [
    { id: IDS.channels.general, weight: 50 },
    { id: IDS.channels.offTopic, weight: 25 },
    { id: IDS.channels.media, weight: 10 },
    { id: IDS.channels.staffChat, weight: 5 },
    { id: IDS.olderPost, weight: 5 },
    { id: 'forum-post', weight: 5 },
  ],
} as const;
const STAFF = [IDS.owner, IDS.admin, IDS.moderator];
const GENERAL_TOPIC = 'Say hi! Keep it friendly; see #rules.';

/** A time of the day drawn by `DAY_SHAPE.hourWeights` (busier evenings), `at(h, m, s, ms)` giving the date. */
function randomDayTime(rng: Random, at: (h: number, m: number, s: number, ms: number) => Date): Date {
  const hour = rng.weighted(
    DAY_SHAPE.hourWeights.map((w, h) => ({ w, h })),
    (x) => x.w,
  ).h;
  return at(hour, rng.int(0, 59), rng.int(0, 59), rng.int(0, 999));
}

/** Resolves true once `condition` holds (polling every 20 ms), false when it still does not after `ms`. */
async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** The ticket panel the bot posted in #tickets before the day: an embed and an "Open a ticket" button. */
function ticketPanel(): Partial<APIMessage> & { id: string } {
  return {
    id: IDS.panelMessage,
    timestamp: '2025-02-20T16:00:00.000000+00:00',
    embeds: [
      {
        type: EmbedType.Rich,
        title: 'Need help?',
        description: 'Press the button to open a private ticket with the staff.',
        color: 0x5865f2,
      },
    ],
    components: [
      {
        type: ComponentType.ActionRow,
        id: 1,
        components: [
          {
            type: ComponentType.Button,
            id: 2,
            style: ButtonStyle.Primary,
            label: 'Open a ticket',
            custom_id: `ticket:open:${TICKET_TYPE_ID}`,
            emoji: { name: '🎫' },
          },
        ],
      },
    ],
  };
}

/**
 * The fixture guild as it is when the day starts (the simulator seed): roles, channels, the open forum post from the
 * day before with its starter message, members (the fixture's Guildhall bot replaced by the simulator's bot
 * `botUserId`, which joins at the day's start), two old bans, six emojis and the ticket panel.
 */
export function dayStartSeed(world: World, botUserId: string): SeedGuild {
  const roles = [...world.roles.values()].map((role) =>
    role.tags?.bot_id === IDS.bot ? { ...role, tags: { ...role.tags, bot_id: botUserId } } : role,
  );
  const olderPost = {
    id: IDS.olderPost,
    type: ChannelType.PublicThread,
    parent_id: IDS.channels.suggestions,
    owner_id: IDS.admin,
    name: 'Weekly game night on Fridays?',
    applied_tags: [IDS.tags.idea],
    thread_metadata: {
      archived: false,
      archive_timestamp: '2025-03-13T19:30:00.000000+00:00',
      auto_archive_duration: ThreadAutoArchiveDuration.ThreeDays,
      locked: false,
      create_timestamp: '2025-03-13T19:30:00.000000+00:00',
    },
  };
  const admin = world.people.get(IDS.admin)!.member.user;
  return {
    id: IDS.guild,
    name: 'Lantern Hall',
    owner_id: IDS.owner,
    icon: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
    premium_tier: 1,
    features: ['COMMUNITY', 'NEWS', 'WELCOME_SCREEN_ENABLED'],
    description: world.description,
    roles,
    channels: [...[...world.channels.values()].map((c) => ({ ...c })), olderPost],
    members: [...world.people.values()].filter((p) => p.member.user.id !== IDS.bot).map((p) => p.member),
    bans: [...world.bans.values()],
    emojis: [...world.emojis.values()].map((e) => ({ ...e, id: e.id!, name: e.name! })),
    messages: {
      [IDS.channels.tickets]: [ticketPanel()],
      [IDS.olderPost]: [
        {
          id: IDS.olderPost,
          author: admin,
          timestamp: '2025-03-13T19:30:00.000000+00:00',
          content: 'Would a fixed game night on Fridays work for you? Reply with the hours that suit you.',
        },
      ],
    },
  };
}

/**
 * Drives the fixture guild's day through the simulator `fake` (started with `clock` as its time source): seeds the
 * guild as it is at `dayStart` (so connected sessions get its GUILD_CREATE), waits until a bot requested its members
 * (REQUEST_GUILD_MEMBERS; rejects after `membersTimeoutMs`; no wait when no bot is connected to the gateway: the day
 * then happens while the bot is away, and a bot connecting later gets the guild as the day left it), then performs
 * the day's timeline in order, each action at its time through the simulator's routes (as the members who do it, via
 * `actAsUser`, or as the bot): chat, edits, deletes, reactions, the announcement, guild/role/channel/emoji changes,
 * role grants by the admin, a webhook, a spammer purged and banned, joins and leaves, a forum post with votes and a
 * tag change, a ticket opened from the panel (the modal is submitted once the bot answered the button with the ticket
 * form, waiting at most 15 s; not when it answered otherwise or is not connected), a timeout, a nickname change, a
 * kick, a ban by the bot and an unban. Every dispatch of the day is one the simulator emits for these actions.
 * Deterministic from `FIXTURE_SEED`: the same simulator options give the same dispatches. Resolves the day's facts.
 */
export async function driveGuildDay(
  fake: FakePlatform,
  dayStart: Date,
  clock: DayClock,
  membersTimeoutMs = 15_000,
): Promise<DayFacts> {
  const driver = guildDayDriver(fake, dayStart, clock, membersTimeoutMs);
  await driver.play();
  return driver.facts;
}

/**
 * The day of `driveGuildDay` as a driver that performs it part by part (`play(count)`), e.g. to stop the bot
 * halfway: the same actions in the same order, so the same dispatches as driving it in one go.
 */
export function guildDayDriver(
  fake: FakePlatform,
  dayStart: Date,
  clock: DayClock,
  membersTimeoutMs = 15_000,
): GuildDayDriver {
  const at = (h: number, m: number, s = 0, ms = 0) =>
    new Date(dayStart.getTime() + ((h * 60 + m) * 60 + s) * 1000 + ms);
  const rng = new Random(FIXTURE_SEED);
  const ids = new SnowflakeClock();
  const world = initialWorld(rng, ids);
  const g = IDS.guild;
  const as = (userId: string) => fake.actAsUser(userId);
  const live = () => fake.guild(g)!;
  const activity = new Map([...world.people].map(([id, p]) => [id, p.activity]));
  const present = () => [...live().members.values()].filter((m) => !m.user.bot).map((m) => m.user.id);
  const canChat = (id: string) => {
    const until = live().members.get(id)?.communication_disabled_until;
    return !until || Date.parse(until) <= clock.now().getTime();
  };
  const recent: APIMessage[] = [];
  const reactionsGiven: Array<{ message: APIMessage; user: string; emoji: string }> = [];

  const agenda: Array<{ at: number; n: number; run: () => Promise<unknown> }> = [];
  const schedule = (when: Date, run: () => Promise<unknown>): void => {
    agenda.push({ at: when.getTime(), n: agenda.length, run });
  };
  const randomTime = () => randomDayTime(rng, at);
  const stillThere = (m: APIMessage) =>
    !!live()
      .messages.get(m.channel_id)
      ?.some((x) => x.id === m.id);
  const post = async (
    author: string,
    channelId: string,
    body: RESTPostAPIChannelMessageJSONBody,
    files?: UserFile[],
  ) => {
    const message = await as(author).sendMessage(channelId, body, files);
    recent.push(message);
    if (recent.length > 60) recent.shift();
    return message;
  };
  const grant = (userId: string, roleId: string) =>
    as(IDS.admin).request('PUT', `/guilds/${g}/members/${userId}/roles/${roleId}`);

  const join = async () => {
    clock.set(dayStart);
    const requests = fake.gateway.memberRequests;
    fake.seedGuild(dayStartSeed(world, fake.botUserId));
    if (!fake.gateway.connectedSessions) return;
    if (!(await until(() => fake.gateway.memberRequests > requests, membersTimeoutMs)))
      throw new Error('the bot did not request the joined guild’s members');
  };

  /* Regular chat, spread over the day with more in the evening (UTC). */
  const chatChannels = DAY_SHAPE.chatChannels;
  let newPost: string | null = null;
  for (let i = 0; i < DAY_SHAPE.chatMessages; i++) {
    schedule(randomTime(), async () => {
      let channelId = rng.weighted(chatChannels, (c) => c.weight).id;
      if (channelId === 'forum-post') channelId = newPost ?? IDS.channels.general;
      const pool = (channelId === IDS.channels.staffChat ? STAFF : present()).filter(canChat);
      const author = rng.weighted(pool, (id) => activity.get(id) ?? 2);
      const history = (live().messages.get(channelId) ?? []).slice(-20);
      const replyTo = history.length && rng.chance(0.15) ? rng.pick(history) : undefined;
      const mentioned = rng.chance(0.08) ? rng.sample(present(), 1).filter((id) => id !== author) : [];
      const images =
        channelId === IDS.channels.media ? (rng.chance(0.7) ? rng.int(1, 3) : 0) : rng.chance(0.03) ? 1 : 0;
      const text = messageText(rng);
      const content = mentioned.length ? `<@${mentioned[0]}> ${text}` : images && rng.chance(0.4) ? '' : text;
      const files = Array.from({ length: images }, (_, n) => ({
        name: `IMG_${rng.int(1000, 9999)}_${n}.png`,
        contentType: 'image/png',
        data: PNG,
      }));
      await post(
        author,
        channelId,
        { content, ...(replyTo ? { message_reference: { message_id: replyTo.id } } : {}) },
        files,
      );
    });
  }

  /* Members fixing typos, deleting their own messages, reacting (a few reactions are taken back). */
  for (let i = 0; i < DAY_SHAPE.selfEdits; i++)
    schedule(randomTime(), async () => {
      const candidates = recent.filter(
        (m) => !m.author.bot && m.content && live().members.has(m.author.id) && stillThere(m),
      );
      if (!candidates.length) return;
      const message = rng.pick(candidates);
      const edit = `${message.content} (${rng.pick(['edit', 'typo', 'fixed', 'nvm'])}: ${sentence(rng)})`;
      message.content = edit;
      await as(message.author.id).editMessage(message.channel_id, message.id, edit);
    });
  for (let i = 0; i < DAY_SHAPE.selfDeletes; i++)
    schedule(randomTime(), async () => {
      const candidates = recent.filter(
        (m) => !m.author.bot && m.id !== newPost && live().members.has(m.author.id) && stillThere(m),
      );
      if (!candidates.length) return;
      const message = rng.pick(candidates);
      await as(message.author.id).deleteMessage(message.channel_id, message.id);
    });
  for (let i = 0; i < DAY_SHAPE.reactionsGiven; i++)
    schedule(randomTime(), async () => {
      const candidates = recent.filter((m) => m.id !== newPost && stillThere(m));
      if (!candidates.length) return;
      const message = rng.pick(candidates);
      const reactor = rng.pick(present());
      const taken = reactionsGiven.filter((r) => stillThere(r.message) && live().members.has(r.user));
      if (rng.chance(0.08) && taken.length) {
        const given = rng.pick(taken);
        reactionsGiven.splice(reactionsGiven.indexOf(given), 1);
        return as(given.user).unreact(given.message.channel_id, given.message.id, given.emoji);
      }
      const emojis = [...live().emojis.values()];
      const custom = rng.chance(0.2) ? rng.pick(emojis) : undefined;
      const emoji = custom ? `${custom.name}:${custom.id}` : rng.pick(DAY_SHAPE.reactions);
      if (reactionsGiven.some((r) => r.message.id === message.id && r.user === reactor && r.emoji === emoji)) return;
      reactionsGiven.push({ message, user: reactor, emoji });
      await as(reactor).react(message.channel_id, message.id, emoji);
    });

  /* Morning announcement with @everyone; the admin changes the guild's description. */
  schedule(at(7, 45, 12), () =>
    post(IDS.admin, IDS.channels.announcements, {
      content: '@everyone Game night is tonight at 20:00 UTC in the Lounge! Bring snacks and good vibes.',
    }),
  );
  schedule(at(9, 5), () =>
    as(IDS.admin).request('PATCH', `/guilds/${g}`, {
      description: 'A friendly place for players of all kinds. Game night every Friday!',
    }),
  );

  /* Roles: the admin creates "Event Team", edits it, grants it to three members, deletes the old "Season 1". */
  let eventTeamRole = '';
  const eventTeam: string[] = [];
  schedule(at(10, 0), async () => {
    eventTeamRole = (await as(IDS.admin).createRole(g, { name: 'new role' })).id;
  });
  schedule(at(10, 2), () =>
    as(IDS.admin).request('PATCH', `/guilds/${g}/roles/${eventTeamRole}`, {
      name: 'Event Team',
      color: 0x9b59b6,
      hoist: true,
      mentionable: true,
    }),
  );
  for (let i = 0; i < 3; i++)
    schedule(at(10, 5, i * 7), async () => {
      const pick = rng.pick(present().filter((id) => !STAFF.includes(id) && !eventTeam.includes(id)));
      eventTeam.push(pick);
      await grant(pick, eventTeamRole);
    });
  schedule(at(10, 10), () => as(IDS.admin).deleteRole(g, IDS.roles.oldRole));

  /* Channels: create #event-planning, change #general's topic, delete #old-memes. */
  let createdChannel = '';
  schedule(at(10, 20), async () => {
    createdChannel = (
      await as(IDS.admin).createChannel(g, {
        name: 'event-planning',
        type: 0,
        parent_id: IDS.categories.community,
        topic: 'Plan game nights here.',
      })
    ).id;
  });
  schedule(at(10, 25), () => as(IDS.admin).editChannel(IDS.channels.general, { topic: GENERAL_TOPIC }));
  schedule(at(10, 30), () => as(IDS.admin).deleteChannel(IDS.channels.oldMemes));

  /* Emojis: upload, rename, delete. */
  const emojiNamed = (name: string) => [...world.emojis.values()].find((e) => e.name === name)!.id!;
  const renamed = { id: emojiNamed('pog'), from: 'pog', to: 'poggers' };
  const deletedEmoji = emojiNamed('oldlogo');
  let createdEmoji = '';
  schedule(at(11, 30), async () => {
    const image = `data:image/png;base64,${PNG.toString('base64')}`;
    createdEmoji = (
      (await as(IDS.admin).request('POST', `/guilds/${g}/emojis`, { name: 'partyparrot', image })) as {
        id: string;
      }
    ).id;
  });
  schedule(at(11, 32), () => as(IDS.admin).request('PATCH', `/guilds/${g}/emojis/${renamed.id}`, { name: renamed.to }));
  schedule(at(11, 35), () => as(IDS.admin).deleteEmoji(g, deletedEmoji));

  /* A webhook for #announcements, and its first post. */
  let hook: { id: string; token?: string } | null = null;
  schedule(at(12, 10), async () => {
    hook = await as(IDS.admin).createWebhook(IDS.channels.announcements, 'Patch Notes');
  });
  schedule(at(12, 30), () =>
    as(IDS.admin).request('POST', `/webhooks/${hook!.id}/${hook!.token}`, {
      content: 'Patch 4.2 is live: new map rotation, balance changes and bug fixes.',
    }),
  );

  /* A spammer joins, floods #general, gets purged (bulk delete) and banned by the moderator. */
  const spammer = makeUser(ids.next(new Date('2025-03-13T22:00:00Z')), 'FreeGifts', rng);
  const spamMessages: string[] = [];
  schedule(at(13, 2), async () => fake.memberJoins(g, { user: spammer }));
  for (let i = 0; i < 12; i++)
    schedule(at(13, 3, i * 11), async () => {
      spamMessages.push((await post(spammer.id, IDS.channels.general, { content: spamText(rng) })).id);
    });
  schedule(at(13, 6, 10), () =>
    as(IDS.moderator).request('POST', `/channels/${IDS.channels.general}/messages/bulk-delete`, {
      messages: spamMessages,
    }),
  );
  schedule(at(13, 6, 40), () => as(IDS.moderator).ban(g, spammer.id, { reason: 'Spam: fake nitro links' }));

  /* Newcomers join through the day; the admin gives each the Members role a few minutes later. */
  const joined: string[] = [spammer.id];
  for (let i = 0; i < 14; i++) {
    const when = randomTime();
    const user = makeUser(ids.next(new Date(when.getTime() - rng.int(2, 2000) * 86_400_000)), NAMES[55 + i], rng);
    joined.push(user.id);
    activity.set(user.id, 2);
    schedule(when, async () => fake.memberJoins(g, { user }));
    schedule(new Date(when.getTime() + rng.int(2, 12) * 60_000), async () => {
      if (live().members.has(user.id)) await grant(user.id, IDS.roles.member);
    });
  }

  /* Four members leave on their own; five others have their part later in the day. */
  const regulars = [...world.people.values()]
    .filter((p) => !p.member.user.bot && !STAFF.includes(p.member.user.id))
    .map((p) => p.member.user.id);
  const leavers = rng.sample(regulars, 4);
  const [kicked, botBanned, timedOut, ticketOpener, nickChanger] = rng.sample(
    regulars.filter((id) => !leavers.includes(id)),
    5,
  );
  for (const id of leavers) schedule(randomTime(), () => as(id).leaveGuild(g));

  /* A forum post with a tag, votes (one taken back), and the moderator tagging it Planned. */
  const postAuthor = rng.pick(regulars.filter((id) => ![...leavers, kicked, botBanned, timedOut].includes(id)));
  schedule(at(14, 20), async () => {
    const thread = (await as(postAuthor).request('POST', `/channels/${IDS.channels.suggestions}/threads`, {
      name: 'Add a #looking-for-group channel',
      applied_tags: [IDS.tags.idea],
      message: {
        content:
          'It is hard to find people to play with at odd hours. A channel where you can post "LFG 2 players, EU, ranked" would help a lot. Vote 👍 if you want it!',
      },
    })) as { id: string };
    newPost = thread.id;
  });
  const voters = rng.sample(
    regulars.filter((id) => id !== postAuthor && !leavers.includes(id)),
    11,
  );
  for (const [i, voter] of voters.entries())
    schedule(at(14, 25 + i * 4), async () => {
      if (live().members.has(voter)) await as(voter).react(newPost!, newPost!, i < 9 ? '👍' : '👎');
    });
  schedule(at(15, 40), async () => {
    if (live().members.has(voters[10])) await as(voters[10]).unreact(newPost!, newPost!, '👎');
  });
  schedule(at(18, 0), () =>
    as(IDS.moderator).request('PATCH', `/channels/${newPost}`, { applied_tags: [IDS.tags.idea, IDS.tags.planned] }),
  );

  /*
   * A member opens a ticket from the panel: the button, then the modal submit once the bot answered the button with
   * the ticket form. A bot that answers otherwise (e.g. no ticket type with the panel's id), not within 15 s, or is not
   * connected to the gateway shows no form: the member cannot submit one.
   */
  let buttonPress = '';
  const callbackTo = (interaction: string) =>
    fake
      .callsTo('POST', '/interactions/{interaction_id}/{interaction_token}/callback')
      .find((c) => c.path.startsWith(`/interactions/${interaction}/`) && c.status < 300);
  /*
   * The platform takes an interaction's first answer within 3 s of its creation on its own clock, which the next
   * action moves on: a connected bot's answer is awaited (15 s at most) before the day goes on.
   */
  const answered = async (interaction: string) => {
    if (fake.gateway.connectedSessions) await until(() => !!callbackTo(interaction), 15_000);
  };
  schedule(at(15, 12, 3), async () => {
    buttonPress = await as(ticketOpener).useComponent(
      IDS.channels.tickets,
      IDS.panelMessage,
      `ticket:open:${TICKET_TYPE_ID}`,
    );
    await answered(buttonPress);
  });
  schedule(at(15, 13, 41), async () => {
    if (!fake.gateway.connectedSessions || !(await until(() => !!callbackTo(buttonPress), 15_000))) return;
    if ((callbackTo(buttonPress)!.body as { type?: number }).type !== InteractionResponseType.Modal) return;
    const submit = await as(ticketOpener).submitModal(TICKET_FORM.customId, {
      [TICKET_FORM.inputs[0]]: 'I cannot see the event channel',
      [TICKET_FORM.inputs[1]]:
        'Since this morning the #event-planning channel is missing for me, but my friend can see it. I have the Members role.',
    });
    await answered(submit);
  });

  /* A member gets heated: the moderator removes one message, then times them out for an hour. */
  const rude = ['this is the worst server ever', 'mods are clueless lol', 'whatever, nobody asked you'];
  const rudeIds: string[] = [];
  for (const [i, content] of rude.entries())
    schedule(at(16, 15 + i * 2, 5), async () => {
      rudeIds.push((await post(timedOut, IDS.channels.general, { content })).id);
    });
  /*
   * A member reports the second rude message with the "Report message" command, as a member does in the client: only
   * when the command is registered (the bridge registers the application's commands when it starts; a recording bot
   * does not) and a bot is connected to answer it. The service answers with a modal for the reason, which the member
   * submits.
   */
  let reported: string | null = null;
  schedule(at(16, 18, 20), async () => {
    if (!fake.gateway.connectedSessions) return;
    const message = rudeIds[1]!;
    const run = await as(postAuthor)
      .runCommand(g, IDS.channels.general, 'Report message', { targetId: message })
      .catch((err: unknown) => {
        if ((err as { code?: number }).code === 10063) return null;
        throw err;
      });
    if (!run) return;
    reported = message;
    await answered(run);
    const modal = (callbackTo(run)?.body ?? {}) as {
      type?: number;
      data?: { custom_id: string; components: Array<{ components: Array<{ custom_id: string }> }> };
    };
    if (modal.type !== InteractionResponseType.Modal || !modal.data) return;
    const input = modal.data.components[0]?.components[0]?.custom_id;
    const submit = await as(postAuthor).submitModal(
      modal.data.custom_id,
      input ? { [input]: 'Insulting the moderators in #general' } : {},
    );
    await answered(submit);
  });
  schedule(at(16, 19, 30), () => as(IDS.moderator).deleteMessage(IDS.channels.general, rudeIds[2]));
  /*
   * Staff act on the rude member by command when the commands are registered and a bot is connected to carry them
   * out: the admin (Administrator, so every cap) warns them with /warn, then times them out for an hour with
   * /timeout, which the bot applies. Otherwise (a recording bot registers nothing) the moderator times them out in the
   * client, as in the fixture.
   */
  const byCommand = async (name: string, options: Record<string, string | number>): Promise<boolean> => {
    if (!fake.gateway.connectedSessions) return false;
    const run = await as(IDS.admin)
      .runCommand(g, IDS.channels.general, name, { options })
      .catch((err: unknown) => {
        if ((err as { code?: number }).code === 10063) return null;
        throw err;
      });
    if (!run) return false;
    await answered(run);
    return true;
  };
  const byCommands = { warn: false, timeout: false };
  schedule(at(16, 19, 45), async () => {
    byCommands.warn = await byCommand('warn', { member: timedOut, reason: 'Rude to the moderators in #general' });
  });
  let timeoutUntil = at(17, 20).toISOString();
  schedule(at(16, 20), async () => {
    const reason = 'Insulting other members (1 hour)';
    if (await byCommand('timeout', { member: timedOut, duration: 3600, reason })) {
      const applied = () => live().members.get(timedOut)?.communication_disabled_until ?? null;
      if (await until(() => applied() !== null, 15_000)) {
        byCommands.timeout = true;
        timeoutUntil = applied()!;
        return;
      }
    }
    await as(IDS.moderator).editMember(g, timedOut, { communication_disabled_until: timeoutUntil }, reason);
  });

  /* A member changes their own nickname. */
  const nick = `${world.people.get(nickChanger)!.member.user.global_name} 🎮`;
  schedule(at(17, 5), () => as(nickChanger).editMember(g, nickChanger, { nick }));

  /* The music bot's now-playing messages in the evening. */
  for (let i = 0; i < 6; i++)
    schedule(at(20, 2 + i * 7, 30), () =>
      post(IDS.musicBot, IDS.channels.offTopic, {
        content: `🎶 Now playing: **${rng.pick(['Lo-fi Beats', 'Synthwave Mix', 'Game OST Classics', 'Chill Acoustic'])}** (requested by <@${rng.pick(present())}>)`,
        flags: MessageFlags.SuppressEmbeds,
      }),
    );

  /* The admin kicks a member; Guildhall's bot bans another for the moderator; the admin lifts an old ban. */
  schedule(at(19, 40), () => as(IDS.admin).kick(g, kicked, 'Alt account of a banned user'));
  schedule(at(21, 15), () =>
    as(fake.botUserId).ban(g, botBanned, { reason: 'Case 14: Repeated harassment after warnings (by Dario)' }),
  );
  const unbanned = [...world.bans.keys()][0];
  schedule(at(22, 30), () => as(IDS.admin).unban(g, unbanned, 'Appeal accepted'));

  agenda.sort((a, b) => a.at - b.at || a.n - b.n);
  let started: Promise<void> | null = null;
  let sent = 0;
  return {
    total: agenda.length,
    get sent() {
      return sent;
    },
    async play(count = agenda.length - sent) {
      started ??= join();
      await started;
      for (const until = Math.min(agenda.length, sent + count); sent < until; sent++) {
        const item = agenda[sent]!;
        clock.set(new Date(item.at));
        await item.run();
      }
      return agenda.length - sent;
    },
    get facts(): DayFacts {
      return {
        joined,
        left: leavers,
        spammer: spammer.id,
        spamMessages,
        timedOut: { user: timedOut, until: timeoutUntil },
        nickname: { user: nickChanger, nick },
        kicked,
        bannedByModerator: spammer.id,
        bannedByBot: botBanned,
        unbanned,
        forumPost: newPost!,
        ticketOpener,
        report: { reporter: postAuthor, message: reported },
        byCommand: { ...byCommands },
        eventTeamRole,
        eventTeam,
        createdChannel,
        deletedChannel: IDS.channels.oldMemes,
        deletedRole: IDS.roles.oldRole,
        createdEmoji,
        renamedEmoji: renamed,
        deletedEmoji,
        generalTopic: GENERAL_TOPIC,
      };
    },
  };
}
