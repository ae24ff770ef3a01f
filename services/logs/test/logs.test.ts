import { messageCreate, sampleGuild } from '@guildhall/platform-simulator';
import {
  type CaseCreatedEvent,
  type EventData,
  type EventType,
  eventSubject,
  JOURNAL_KINDS,
  newSnowflake,
  RPC,
  sortKey,
} from '@guildhall/shared';
import { eventsOfType, eventually, type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import { AuditLogEvent, ChannelType, type GatewayMessageCreateDispatchData } from 'discord-api-types/v10';
import type { LogsConfig } from '../src/config';
import { eventsAboutUser, userEventsFilters } from '../src/journal/listJournal';
import { JournalEventModel } from '../src/journal/model';
import { DELETED_BY_AUTHOR, MessageModel } from '../src/messages/model';
import {
  deletedByFilter,
  deletedMessagesBy,
  messageSearchFilter,
  searchMessages,
} from '../src/messages/searchMessages';
import { definition } from '../src/service';

const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const secret = newSnowflake();
const otherGuild = newSnowflake();
seed.channels?.push({ id: secret, type: ChannelType.GuildText, name: 'secret', parent_id: ids.category });

let h: ServiceHarness<LogsConfig, 'logs'>;

const user = (id: string, username: string, bot = false) => ({
  id,
  username,
  global_name: null,
  discriminator: '0',
  avatar: null,
  bot,
});
const member = user(ids.member, 'plainmember');
const moderator = user(ids.moderator, 'modperson');
const admin = user(ids.admin, 'adminperson');

async function api(
  method: string,
  path: string,
  body?: unknown,
  caps: string[] = ['logs.read', 'logs.manage', 'messages.search', 'journal.read', 'journal.undo'],
) {
  return h.call(method, `/api/v1/servers/${g}${path}`, { body, caps });
}

const withLimit = (query: string) => (query.includes('limit=') ? query.slice(1) : `limit=100${query}`);
const journal = async (query = '') => (await api('GET', `/journal?${withLimit(query)}`)).body.events as any[];
const search = async (query = '') => (await api('GET', `/messages?${withLimit(query)}`)).body.messages as any[];

function message(
  id: string,
  channel: string,
  author: ReturnType<typeof user>,
  content: string,
  extra: Partial<GatewayMessageCreateDispatchData> = {},
) {
  return messageCreate({ id, channel_id: channel, guild_id: g, author, content, ...extra });
}

function audit(actionType: number, userId: string, targetId: string | null, extra: object = {}) {
  return { id: newSnowflake(), guild_id: g, action_type: actionType, user_id: userId, target_id: targetId, ...extra };
}

const attachment = {
  id: '1',
  filename: 'a.png',
  size: 1,
  url: 'https://cdn.example/a.png',
  proxy_url: 'https://cdn.example/a.png',
};
const m = {
  hello: newSnowflake(),
  reply: newSnowflake(),
  secret: newSnowflake(),
  bot: newSnowflake(),
  bulk1: newSnowflake(),
  bulk2: newSnowflake(),
};
const joiner = newSnowflake();
const supportRole = seed.roles?.find((r) => r.id === ids.supportRole);
const fullRole = (over: object) => ({
  id: ids.supportRole,
  name: 'Support',
  color: 0x2ecc71,
  colors: { primary_color: 0x2ecc71, secondary_color: null, tertiary_color: null },
  hoist: false,
  position: 1,
  permissions: supportRole?.permissions ?? '0',
  managed: false,
  mentionable: false,
  flags: 0,
  ...over,
});
const generalChannel = (topic: string) => ({
  id: ids.general,
  type: 0,
  guild_id: g,
  name: 'general',
  parent_id: ids.category,
  position: 1,
  topic,
  nsfw: false,
  permission_overwrites: [],
});

/** The recorded stream: every dispatch with a fixed gateway sequence, so a replay is the same stream again. */
const stream: Array<[string, unknown]> = [
  [
    'GUILD_CREATE',
    {
      id: g,
      name: 'Sample Guild',
      owner_id: ids.owner,
      roles: [fullRole({})],
      channels: [
        generalChannel('General chat'),
        { id: secret, type: 0, guild_id: g, name: 'secret', position: 2, permission_overwrites: [] },
      ],
      threads: [],
      emojis: [],
      stickers: [],
      members: [
        { user: member, roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
        {
          user: moderator,
          roles: [ids.moderatorRole],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
        {
          user: admin,
          roles: [ids.adminRole],
          joined_at: new Date().toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
      ],
    },
  ],
  [
    'MESSAGE_CREATE',
    message(m.hello, ids.general, member, 'Hello world from the replay', { attachments: [attachment] }),
  ],
  [
    'MESSAGE_CREATE',
    message(m.reply, ids.general, member, 'a reply about bananas', {
      message_reference: { type: 0, message_id: m.hello, channel_id: ids.general, guild_id: g },
    }),
  ],
  ['MESSAGE_CREATE', message(m.secret, secret, member, 'hello from the secret channel')],
  ['MESSAGE_CREATE', message(m.bot, ids.general, user(newSnowflake(), 'somebot', true), 'hello I am a bot')],
  ['MESSAGE_CREATE', message(m.bulk1, ids.general, member, 'bulk one')],
  ['MESSAGE_CREATE', message(m.bulk2, ids.general, member, 'bulk two')],
  [
    'MESSAGE_UPDATE',
    {
      ...message(m.hello, ids.general, member, 'Hello world, edited', { attachments: [attachment] }),
      edited_timestamp: '2030-01-01T00:00:00.000Z',
    },
  ],
  ['MESSAGE_DELETE', { id: m.reply, channel_id: ids.general, guild_id: g }],
  ['MESSAGE_DELETE_BULK', { ids: [m.bulk1, m.bulk2], channel_id: ids.general, guild_id: g }],
  [
    'GUILD_AUDIT_LOG_ENTRY_CREATE',
    audit(AuditLogEvent.MessageBulkDelete, ids.moderator, ids.general, {
      options: { channel_id: ids.general, count: '2' },
    }),
  ],
  [
    'GUILD_MEMBER_ADD',
    {
      guild_id: g,
      user: user(joiner, 'newcomer'),
      roles: [],
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
      pending: true,
    },
  ],
  [
    'GUILD_MEMBER_UPDATE',
    {
      guild_id: g,
      user: user(joiner, 'newcomer'),
      roles: [],
      joined_at: new Date().toISOString(),
      pending: false,
      nick: null,
    },
  ],
  [
    'GUILD_AUDIT_LOG_ENTRY_CREATE',
    audit(AuditLogEvent.MemberBanAdd, ids.moderator, ids.member, { reason: 'spam links' }),
  ],
  ['GUILD_BAN_ADD', { guild_id: g, user: member }],
  ['GUILD_MEMBER_REMOVE', { guild_id: g, user: member }],
  ['GUILD_ROLE_UPDATE', { guild_id: g, role: fullRole({ name: 'Helpers', color: 0xff0000 }) }],
  ['GUILD_AUDIT_LOG_ENTRY_CREATE', audit(AuditLogEvent.RoleUpdate, ids.admin, ids.supportRole)],
  ['CHANNEL_UPDATE', generalChannel('New topic')],
  ['GUILD_AUDIT_LOG_ENTRY_CREATE', audit(AuditLogEvent.ChannelUpdate, ids.admin, ids.general)],
  ['GUILD_ROLE_DELETE', { guild_id: g, role_id: ids.supportRole }],
  ['GUILD_AUDIT_LOG_ENTRY_CREATE', audit(AuditLogEvent.MemberKick, ids.moderator, joiner, { reason: 'rude' })],
];

async function replay(): Promise<void> {
  let s = 1000;
  for (const [t, d] of stream) await h.dispatch(t, d, s++);
}

/** Publishes one fresh message and one fresh join and waits for both: every earlier dispatch was handled. */
async function settle(): Promise<void> {
  const mark = newSnowflake();
  const sentinel = newSnowflake();
  await h.dispatch('MESSAGE_CREATE', message(mark, ids.general, admin, `sentinel${mark}`));
  await h.dispatch('GUILD_MEMBER_ADD', {
    guild_id: g,
    user: user(sentinel, 'sentinel'),
    roles: [],
    joined_at: new Date().toISOString(),
    deaf: false,
    mute: false,
    flags: 0,
  });
  await eventually(async () => expect((await search(`&q=sentinel${mark}`)).length).toBe(1));
  await eventually(async () => expect((await journal(`&target=${sentinel}`)).length).toBe(1));
}

beforeAll(async () => {
  h = await startServiceHarness(definition, {
    seed,
    env: { LOG_POST_DELAY_MS: '300', LOG_FLUSH_MS: '100' },
    structure: true,
    caller: { as: 'admin' },
  });
});

afterAll(() => h?.close());

describe('log settings', () => {
  it('rejects channels that are not in the guild, naming the field', async () => {
    const res = await api('PUT', '/logs', {
      ignoredChannels: [newSnowflake()],
      ignoreBots: true,
      messagesChannel: ids.forum,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'body.ignoredChannels.0',
      'body.messagesChannel',
    ]);
  });

  it('stores destinations and ignore rules, and answers the features RPC', async () => {
    const res = await api('PUT', '/logs', {
      ignoredChannels: [secret],
      ignoreBots: true,
      messagesChannel: ids.modLog,
      membersChannel: ids.modLog,
      moderationChannel: ids.modLog,
    });
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual({
      guild: g,
      messagesChannel: ids.modLog,
      membersChannel: ids.modLog,
      moderationChannel: ids.modLog,
      serverChannel: null,
      ignoredChannels: [secret],
      ignoreBots: true,
    });
    expect((await api('GET', '/logs')).body.settings.ignoreBots).toBe(true);
    const features = await h.peer.request<any>(RPC.features('logs'), { guild: g }, 2000);
    expect(features.features).toEqual([
      { feature: 'logs', state: 'partial', note: expect.stringContaining('3 of 4') },
      { feature: 'antinuke', state: 'off', note: 'Anti-nuke is off' },
    ]);
    await api('PUT', '/logs', { ignoredChannels: [secret], ignoreBots: true, serverChannel: ids.modLog });
    expect((await h.peer.request<any>(RPC.features('logs'), { guild: g }, 2000)).features[0].state).toBe('on');
  });

  it('journals its own settings change as settings_update, viaService', async () => {
    await eventually(async () => {
      const events = await journal('&kind=settings_update');
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events[0]).toMatchObject({
        actor: ids.admin,
        viaService: true,
        data: expect.objectContaining({ service: 'logs', area: 'logs' }),
      });
    });
  });
});

describe('replay of a recorded dispatch stream', () => {
  let before: any[];

  beforeAll(async () => {
    await replay();
    await settle();
    await eventually(async () => expect((await journal('&kind=member_kick')).length).toBe(1));
    before = await journal();
  });

  it('stores messages with edits, deletions, attachments and replies, skipping ignored channels and bots', async () => {
    const all = await search();
    const byId = new Map(all.map((x) => [x.id, x]));
    expect(byId.get(m.hello)).toMatchObject({
      content: 'Hello world, edited',
      original: 'Hello world from the replay',
      attachments: ['https://cdn.example/a.png'],
      editedAt: '2030-01-01T00:00:00.000Z',
      deletedAt: null,
      authorName: 'plainmember',
    });
    expect(byId.get(m.reply)).toMatchObject({ replyTo: m.hello, deletedAt: expect.any(String) });
    expect(byId.get(m.bulk1)?.deletedAt).not.toBeNull();
    expect(byId.has(m.secret)).toBe(false);
    expect(byId.has(m.bot)).toBe(false);
  });

  it('journals each kind with actors from the audit log', async () => {
    const one = (kind: string) => before.filter((e) => e.kind === kind);
    expect(one('message_edit')).toEqual([
      expect.objectContaining({
        actor: ids.member,
        target: ids.member,
        channel: ids.general,
        data: expect.objectContaining({ before: 'Hello world from the replay', after: 'Hello world, edited' }),
      }),
    ]);
    expect(one('message_delete')).toEqual([
      expect.objectContaining({
        actor: ids.member,
        data: expect.objectContaining({ content: 'a reply about bananas' }),
      }),
    ]);
    expect(one('message_bulk_delete')).toEqual([
      expect.objectContaining({
        actor: ids.moderator,
        actorName: 'modperson',
        target: ids.general,
        data: expect.objectContaining({ count: 2 }),
      }),
    ]);
    expect(one('member_join').some((e) => e.target === joiner)).toBe(true);
    expect(one('verify')).toEqual([expect.objectContaining({ target: joiner })]);
    expect(one('member_ban')).toEqual([
      expect.objectContaining({
        actor: ids.moderator,
        target: ids.member,
        viaService: false,
        data: expect.objectContaining({ reason: 'spam links' }),
      }),
    ]);
    expect(one('member_leave')).toEqual([expect.objectContaining({ target: ids.member, targetName: 'plainmember' })]);
    expect(one('role_update')).toEqual([
      expect.objectContaining({
        actor: ids.admin,
        target: ids.supportRole,
        data: expect.objectContaining({
          changes: expect.arrayContaining(['name', 'color']),
          before: expect.objectContaining({ name: 'Support' }),
          after: expect.objectContaining({ name: 'Helpers' }),
        }),
      }),
    ]);
    expect(one('channel_update')).toEqual([
      expect.objectContaining({ actor: ids.admin, data: expect.objectContaining({ changes: ['topic'] }) }),
    ]);
    expect(one('role_delete')).toEqual([
      expect.objectContaining({
        targetName: 'Helpers',
        data: expect.objectContaining({ role: expect.objectContaining({ name: 'Helpers' }) }),
      }),
    ]);
    expect(one('member_kick')).toEqual([
      expect.objectContaining({
        actor: ids.moderator,
        target: joiner,
        data: expect.objectContaining({ reason: 'rude' }),
      }),
    ]);
    for (const e of before) expect(Date.parse(e.data.at)).not.toBeNaN();
  });

  it('changes nothing when replayed again', async () => {
    const messagesBefore = await search();
    await replay();
    await settle();
    const after = await journal();
    const withoutSentinels = (events: any[]) =>
      events.filter((e) => !(e.kind === 'member_join' && e.targetName === 'sentinel'));
    expect(withoutSentinels(after)).toEqual(withoutSentinels(before));
    const messagesAfter = (await search()).filter((x) => !x.content.startsWith('sentinel'));
    expect(messagesAfter).toEqual(messagesBefore.filter((x) => !x.content.startsWith('sentinel')));
  });

  it('filters the journal and rejects an unknown kind naming the allowed values', async () => {
    const byActor = await journal(`&actor=${ids.moderator}`);
    expect(byActor.length).toBeGreaterThan(0);
    expect(byActor.every((e) => e.actor === ids.moderator)).toBe(true);
    const all = await journal();
    const page1 = await journal('&limit=2');
    const page2 = await journal(`&limit=2&before=${page1[1].id}`);
    expect([...page1, ...page2].map((e) => e.id)).toEqual(all.slice(0, 4).map((e) => e.id));
    const bad = await api('GET', '/journal?kind=message_create');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain(JOURNAL_KINDS.join(', '));
  });

  it('posts log embeds in batches to the configured channels only', async () => {
    await eventually(async () => {
      const posts = h.fake.callsTo('POST', '/channels/{channel_id}/messages');
      const titles = posts.flatMap((c) => ((c.body as any).embeds as any[]).map((e) => e.title));
      expect(titles).toEqual(
        expect.arrayContaining(['message edit', 'message delete', 'member ban', 'role update', 'member kick']),
      );
    });
    const posts = h.fake.callsTo('POST', '/channels/{channel_id}/messages');
    for (const call of posts) {
      expect(call.path).toBe(`/channels/${ids.modLog}/messages`);
      expect((call.body as any).embeds.length).toBeLessThanOrEqual(10);
    }
    expect(posts.some((c) => (c.body as any).embeds.length > 1)).toBe(true);
    expect(JSON.stringify(posts.map((c) => c.body))).not.toContain('secret channel');
    h.fake.assertNoViolations();
  });

  it('undoes a role deletion by re-creating the role from its snapshot, once', async () => {
    const [deleted] = await journal('&kind=role_delete');
    const res = await api('POST', `/journal/${deleted.id}/undo`, {});
    expect(h.fake.violations).toEqual([]);
    expect(res.body.detail).toBeUndefined();
    expect(res.status).toBe(200);
    const [created] = h.fake.callsTo('POST', '/guilds/{guild_id}/roles');
    expect(created.body).toMatchObject({ name: 'Helpers', color: 0xff0000 });
    expect(created.reason).toContain(deleted.id);
    expect(res.body).toMatchObject({
      undoneBy: ids.admin,
      undoneAs: expect.stringMatching(/^[0-9]+$/),
      undoneAt: expect.any(String),
    });
    expect((await api('POST', `/journal/${deleted.id}/undo`, {})).status).toBe(409);
    const [ban] = await journal('&kind=member_ban');
    h.fake
      .guild(g)
      ?.bans.set(ids.member, { user: h.fake.guild(g)?.members.get(ids.member)?.user as any, reason: 'spam links' });
    expect((await api('POST', `/journal/${ban.id}/undo`, {})).body.undoneAs).toBe('unban');
    expect(h.fake.callsTo('DELETE', '/guilds/{guild_id}/bans/{user_id}')).toHaveLength(1);
    const undone = await eventually(async () => {
      const event = h.events.find((e) => e.type === 'journal.undone');
      expect(event).toBeDefined();
      return event;
    });
    expect(undone?.data).toEqual({
      event: ban.id,
      kind: 'member_ban',
      target: ids.member,
      undoneBy: ids.admin,
      undoneByName: expect.any(String),
    });
    h.fake.assertNoViolations();
  });

  it('answers the member history RPC', async () => {
    const history = await h.peer.request<any>(RPC.memberHistory, { guild: g, user: ids.member, limit: 10 }, 2000);
    expect(history.events.map((e: any) => e.kind)).toEqual(
      expect.arrayContaining(['member_ban', 'message_delete', 'member_leave']),
    );
    expect(history.deleted.map((x: any) => x.id).sort()).toEqual([m.reply, m.bulk1, m.bulk2].sort());
  });

  it("merges a member's events as target and as actor newest first, reading each event once", async () => {
    const guild = newSnowflake();
    const [user, mod, other] = [newSnowflake(), newSnowflake(), newSnowflake()];
    const cast: Array<[string, string | null, string | null]> = [
      ['message_delete', user, user],
      ['member_ban', mod, user],
      ['member_ban', user, other],
      ['member_join', user, user],
      ['member_ban', mod, other],
      ['role_create', user, null],
      ['member_kick', other, user],
    ];
    const ids = cast.map(() => newSnowflake());
    await JournalEventModel.insertMany(
      cast.map(([kind, actor, target], i) => ({
        _id: ids[i],
        key: sortKey(ids[i]!),
        guild,
        kind,
        actor,
        target,
        data: {},
        dedupe: `test:${ids[i]}`,
        at: new Date(),
        seenAt: new Date(),
      })),
    );
    const newestFirst = [6, 5, 3, 2, 1, 0].map((i) => ids[i]);
    const events = await eventsAboutUser(guild, user, 10, []);
    expect(events.map((e) => e._id)).toEqual(newestFirst);
    for (const field of ['dedupe', 'seenAt', 'lease', 'actorRank', 'atKnown'])
      expect(events[0]).not.toHaveProperty(field);
    expect(events[0]).toHaveProperty('key');
    expect((await eventsAboutUser(guild, user, 3, [])).map((e) => e._id)).toEqual(newestFirst.slice(0, 3));
    const read = await Promise.all(userEventsFilters(guild, user, []).map((f) => JournalEventModel.find(f).lean()));
    expect(
      read
        .flat()
        .map((e) => e._id)
        .sort(),
    ).toEqual([...newestFirst].sort());
    const actorPlan = (await JournalEventModel.find(userEventsFilters(guild, user, [])[1]!)
      .sort({ key: -1 })
      .explain('executionStats')) as unknown as { executionStats: { totalDocsExamined: number } };
    expect(actorPlan.executionStats.totalDocsExamined).toBe(4);
    await JournalEventModel.deleteMany({ guild });
  });

  it("reads at most `limit` of the author's deleted messages for the member record, however many are stored", async () => {
    const quiet = newSnowflake();
    const author = newSnowflake();
    const rows = await storeLines(quiet, 500, (i, now) => ({
      channel: ids.general,
      author: i % 5 === 0 ? author : ids.member,
      deletedAt: i % 10 === 0 ? new Date(now) : null,
    }));
    const deletedIds = rows.filter((r) => r.author === author && r.deletedAt).map((r) => r._id);
    expect(deletedIds).toHaveLength(50);
    const plan = (await MessageModel.find(deletedByFilter(quiet, author, []))
      .sort({ key: -1 })
      .hint(DELETED_BY_AUTHOR)
      .limit(10)
      .explain('executionStats')) as unknown as { executionStats: { totalDocsExamined: number } };
    expect(plan.executionStats.totalDocsExamined).toBe(10);
    const found = await deletedMessagesBy(quiet, author, 10);
    expect(found.map((r) => r._id)).toEqual([...deletedIds].reverse().slice(0, 10));
    await MessageModel.deleteMany({ guild: quiet });
  });
});

/**
 * Stores `count` messages `line <i>` of `guild`, one a second up to now, oldest first; `pick` gives each its channel,
 * author and deletion. Returns the rows as stored.
 */
async function storeLines(
  guild: string,
  count: number,
  pick: (i: number, now: number) => { channel: string; author: string; deletedAt: Date | null },
) {
  const now = Date.now();
  const rows = Array.from({ length: count }, (_, i) => {
    const createdAt = new Date(now - (count - i) * 1000);
    const id = newSnowflake(createdAt);
    const line = `line ${i}`;
    return {
      _id: id,
      key: sortKey(id),
      guild,
      authorName: 'someone',
      content: line,
      original: line,
      createdAt,
      ...pick(i, now),
    };
  });
  await MessageModel.insertMany(rows);
  return rows;
}

describe('message search', () => {
  it('deleted=true answers the deleted messages only (deleted=false the others) through an index, newest first', async () => {
    const quiet = newSnowflake();
    const rows = await storeLines(quiet, 300, (i, now) => ({
      channel: i % 2 ? ids.general : ids.modLog,
      author: ids.member,
      deletedAt: i % 30 === 7 ? new Date(now - i) : null,
    }));
    // a row stored without the field (as before it existed) counts as not deleted
    await MessageModel.collection.updateOne({ _id: rows[0]!._id as never }, { $unset: { deletedAt: '' } });
    const newestFirst = (keep: (r: (typeof rows)[number], i: number) => boolean) =>
      rows
        .filter(keep)
        .map((r) => r._id)
        .reverse();
    const ask = async (search: Parameters<typeof searchMessages>[1]) =>
      (await searchMessages(quiet, search)).map((r) => r._id);

    const deleted = newestFirst((r) => r.deletedAt !== null);
    expect(deleted).toHaveLength(10);
    expect(await ask({ deleted: true, limit: 100 })).toEqual(deleted);
    expect(await ask({ deleted: false, limit: 500 })).toEqual(newestFirst((r) => r.deletedAt === null));
    expect(await ask({ deleted: true, limit: 3, before: deleted[2] })).toEqual(deleted.slice(3, 6));
    expect(await ask({ deleted: true, channel: ids.general, limit: 100 })).toEqual(
      newestFirst((r) => r.deletedAt !== null && r.channel === ids.general),
    );
    expect(await ask({ deleted: true, hidden: [ids.general], limit: 100 })).toEqual(
      newestFirst((r) => r.deletedAt !== null && r.channel !== ids.general),
    );

    const plan = async (search: Parameters<typeof searchMessages>[1]) =>
      (await MessageModel.find(messageSearchFilter(quiet, search)!)
        .sort({ key: -1 })
        .limit(search.limit)
        .explain('executionStats')) as unknown as {
        queryPlanner: { winningPlan: { stage: string; indexName: string } };
        executionStats: { totalDocsExamined: number };
      };
    const all = await plan({ deleted: true, limit: 100 });
    expect(all.queryPlanner.winningPlan).toMatchObject({ stage: 'IXSCAN', indexName: 'guild_1_key_-1' });
    // the newest three deleted messages are found walking back from the newest message, not by reading them all
    const firstPage = await plan({ deleted: true, limit: 3 });
    expect(firstPage.executionStats.totalDocsExamined).toBe(300 - rows.findIndex((r) => r._id === deleted[2]));
    const oneChannel = await plan({ deleted: true, channel: ids.general, limit: 100 });
    expect(oneChannel.queryPlanner.winningPlan).toMatchObject({
      stage: 'IXSCAN',
      indexName: 'guild_1_channel_1_key_-1',
    });
    await MessageModel.deleteMany({ guild: quiet });
  });

  it('finds by word case-insensitively, filters by channel and deleted, and pages with before', async () => {
    expect((await search('&q=HELLO')).map((x) => x.id)).toEqual([m.hello]);
    expect((await search('&q=bananas&deleted=true')).map((x) => x.id)).toEqual([m.reply]);
    expect(await search('&q=bananas&deleted=false')).toEqual([]);
    expect(await search(`&channel=${ids.modLog}`)).toEqual([]);
    const first = await search('&limit=1');
    const next = await search(`&limit=1&before=${first[0].id}`);
    expect(BigInt(next[0].id) < BigInt(first[0].id)).toBe(true);
  });

  it('never returns messages older than 7 days or from another guild', async () => {
    const old = newSnowflake(new Date(Date.now() - 8 * 24 * 3600 * 1000));
    const foreign = newSnowflake();
    await h.dispatch('MESSAGE_CREATE', message(old, ids.general, member, 'ancient zebra'));
    await h.dispatch('MESSAGE_CREATE', {
      ...message(foreign, newSnowflake(), member, 'foreign zebra'),
      guild_id: otherGuild,
    });
    await settle();
    expect(await search('&q=zebra')).toEqual([]);
  });
});

describe('moderation cases', () => {
  it('logs a case, publishes case.logged, gives the ban its moderator, and edits the log on update', async () => {
    const target = newSnowflake();
    const kase: CaseCreatedEvent['case'] = {
      guild: g,
      number: 7,
      action: 'ban',
      target,
      targetName: 'troll',
      moderator: ids.moderator,
      moderatorName: 'modperson',
      reason: 'raiding',
      status: 'active',
      expiresAt: null,
      logChannel: null,
      logMessage: null,
      createdAt: new Date().toISOString(),
    };
    const logged = () => eventsOfType(h.events, 'case.logged');
    const emit = <T extends EventType<'moderation'>>(type: T, data: EventData<'moderation', T>) =>
      h.peer.publish(
        eventSubject('moderation', g, type),
        { id: `${type}-${Math.random()}`, type, service: 'moderation', guild: g, at: new Date().toISOString(), data },
        `${type}-${Math.random()}`,
      );
    await emit('case.created', { case: kase, duration: null, deleteMessageSeconds: null, failure: null });
    await h.dispatch('GUILD_BAN_ADD', { guild_id: g, user: user(target, 'troll') });
    await h.dispatch(
      'GUILD_AUDIT_LOG_ENTRY_CREATE',
      audit(AuditLogEvent.MemberBanAdd, h.fake.botUserId, target, { reason: 'raiding' }),
    );
    await eventually(async () => {
      expect(logged()).toHaveLength(1);
      expect(logged()[0].data).toMatchObject({
        caseNumber: 7,
        logChannel: ids.modLog,
        logMessage: expect.stringMatching(/^[0-9]+$/),
      });
    });
    await eventually(async () => {
      const [ban] = await journal(`&kind=member_ban&target=${target}`);
      expect(ban).toMatchObject({
        actor: ids.moderator,
        actorName: 'modperson',
        viaService: true,
        data: expect.objectContaining({ case: 7 }),
      });
    });
    await emit('case.updated', {
      case: { ...kase, reason: 'raiding with alts' },
      previousReason: 'raiding',
      editedBy: ids.moderator,
      editedByName: 'modperson',
    });
    await eventually(async () => {
      const edits = h.fake.callsTo('PATCH', '/channels/{channel_id}/messages/{message_id}');
      expect(edits).toHaveLength(1);
      expect(edits[0].path).toBe(`/channels/${ids.modLog}/messages/${logged()[0].data.logMessage}`);
      expect(JSON.stringify(edits[0].body)).toContain('raiding with alts');
    });
    h.fake.assertNoViolations();
  });
});

describe('member snapshots from GUILD_MEMBERS_CHUNK', () => {
  it('journals the leave of a member known only from a chunk with its name, roles and join time', async () => {
    const chunked = newSnowflake();
    const joinedAt = '2025-01-02T00:00:00.000000+00:00';
    const who = user(chunked, 'chunky');
    await h.dispatch('GUILD_MEMBERS_CHUNK', {
      guild_id: g,
      members: [
        { user: who, nick: 'Chunk Nick', roles: [ids.moderatorRole], joined_at: joinedAt, deaf: false, mute: false },
      ],
      chunk_index: 0,
      chunk_count: 1,
    });
    await h.dispatch('GUILD_MEMBER_REMOVE', { guild_id: g, user: who });
    await eventually(async () =>
      expect(await journal(`&target=${chunked}`)).toEqual([
        expect.objectContaining({
          kind: 'member_leave',
          targetName: 'Chunk Nick',
          data: expect.objectContaining({ roles: [ids.moderatorRole], joinedAt }),
        }),
      ]),
    );
  });
});

describe('member snapshots of a large guild', () => {
  it('keeps members a GUILD_CREATE does not list, and takes members from GUILD_MEMBERS_CHUNK', async () => {
    const chunked = newSnowflake();
    const joinedAt = new Date().toISOString();
    const [, guildCreate] = stream[0] as [string, Record<string, unknown>];
    await h.dispatch('GUILD_CREATE', { ...guildCreate, member_count: 500, large: true, members: [] });
    await h.dispatch('GUILD_MEMBERS_CHUNK', {
      guild_id: g,
      members: [
        { user: user(chunked, 'chunked'), roles: [ids.moderatorRole], joined_at: joinedAt, deaf: false, mute: false },
      ],
      chunk_index: 0,
      chunk_count: 1,
    });
    await h.dispatch('GUILD_MEMBER_REMOVE', { guild_id: g, user: user(chunked, 'chunked') });
    await h.dispatch('GUILD_MEMBER_REMOVE', { guild_id: g, user: admin });
    await settle();
    const [left] = await journal(`&kind=member_leave&target=${chunked}`);
    expect(left.data).toMatchObject({ roles: [ids.moderatorRole], joinedAt });
    const [adminLeft] = await journal(`&kind=member_leave&target=${ids.admin}`);
    expect(adminLeft.data.roles).toEqual([ids.adminRole]);
  });
});

describe('undo of a channel deletion', () => {
  it('re-creates a channel whose overwrites carry string allow/deny (as the platform sends them)', async () => {
    const overwrites = [
      { id: g, type: 0, allow: '0', deny: '1024' },
      { id: ids.moderatorRole, type: 0, allow: '3072', deny: '0' },
      { id: ids.member, type: 1, allow: '1024', deny: '2048' },
    ];
    const owner = h.fake.actAsUser(ids.owner);
    const vault = await owner.createChannel(g, {
      name: 'vault',
      type: ChannelType.GuildText,
      topic: 'staff only',
      permission_overwrites: overwrites,
    });
    expect(vault).toMatchObject({ permission_overwrites: overwrites });
    await h.dispatch('CHANNEL_CREATE', vault);
    await owner.deleteChannel(vault.id, 'cleanup');
    await h.dispatch('CHANNEL_DELETE', vault);
    await h.dispatch(
      'GUILD_AUDIT_LOG_ENTRY_CREATE',
      audit(AuditLogEvent.ChannelDelete, ids.owner, vault.id, { reason: 'cleanup' }),
    );
    const deleted = await eventually(async () => {
      const [event] = await journal(`&kind=channel_delete&target=${vault.id}`);
      expect(event).toBeDefined();
      return event;
    });
    const res = await api('POST', `/journal/${deleted.id}/undo`, {});
    expect(res.body.detail).toBeUndefined();
    expect(res.status).toBe(200);
    const restored = h.fake.guild(g)?.channels.get(res.body.undoneAs);
    expect(restored).toMatchObject({
      name: 'vault',
      type: ChannelType.GuildText,
      topic: 'staff only',
      permission_overwrites: overwrites,
    });
    expect(h.fake.guild(g)?.channels.has(vault.id)).toBe(false);
    h.fake.assertNoViolations();
  });
});
