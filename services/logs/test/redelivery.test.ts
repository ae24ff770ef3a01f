import type { BusMessage, Dispatch, PlatformApi } from '@guildhall/shared';
import { BotUser, connectMongo, createLogger, disconnectMongo, newSnowflake } from '@guildhall/shared';
import { stopTestMongo, testDbName, testMongoUrl } from '@guildhall/testkit';
import mongoose from 'mongoose';
import { dispatchKey } from '../src/dispatch';
import { banChanged, memberAdded, memberUpdated } from '../src/journal/fromMembers';
import { channelChanged, expressionsUpdated } from '../src/journal/fromStructure';
import { type EventRow, JournalEventModel } from '../src/journal/model';
import { Journal, type NewEvent } from '../src/journal/recordEvent';
import { ingestMessages } from '../src/messages/ingestMessages';
import { MessageModel } from '../src/messages/model';
import { ChannelDirectory } from '../src/privacy/channelFacts';

/**
 * A dispatch redelivered after the process died half-way through it (after some of its writes, before its journal
 * events) journals exactly what one uninterrupted delivery journals: the crash is simulated by a journal that stores
 * the first `n` events and then throws, for every `n` the dispatch reaches.
 */
const user = (id: string, username: string) => ({ id, username, global_name: null, discriminator: '0', avatar: null });
let seq = 1;
const dispatch = <T extends string>(t: T, d: unknown) => ({ op: 0, t, s: seq++, d }) as unknown as Dispatch;
/** `d` as the bus delivers it: from the bridge, with its `<shard>:<session>:<sequence>` message id. */
const delivered = (d: Dispatch, session = 'session-a') =>
  ({ subject: '', data: d, msgId: `0:${session}:${d.s}`, deliveryCount: 1 }) as BusMessage<Dispatch>;
/** The key of `d` delivered in `session`. */
const keyOf = (d: Dispatch, session?: string) => dispatchKey(delivered(d, session));
const journal = new Journal(10_000, async () => undefined);

/** A journal that stores `survives` events, then throws as if the process had died. */
function dyingJournal(survives: number): Journal {
  let left = survives;
  return {
    record: async (event: NewEvent) => {
      if (left-- <= 0) throw new Error('process died');
      return journal.record(event);
    },
  } as unknown as Journal;
}

/** The message id used in `guild` (ids are unique across guilds). */
const messageOf = (guild: string) => `${guild.slice(0, -1)}8`;
const channelOf = (guild: string) => `${guild.slice(0, -1)}9`;

/** The journal events of `guild` (kind, target, data without its times), with the guild's message id as `message`. */
async function events(
  guild: string,
): Promise<Array<{ kind: string; target: string | null; data: Record<string, unknown> }>> {
  const rows = await JournalEventModel.find({ guild }).sort({ key: 1 }).lean<EventRow[]>();
  const view = rows.map(({ kind, target, data: { at, sentAt, ...data } }) => ({ kind, target, data }));
  return JSON.parse(JSON.stringify(view).replaceAll(messageOf(guild), 'message'));
}

/**
 * Delivers the dispatches under test (made once per guild by `dispatches`, in a fresh guild set up by `setUp`) once
 * without a crash, then for every crash point: crashed once, then the same dispatches redelivered. Each redelivered run must journal what the uninterrupted one did.
 */
async function everyCrashPoint(
  setUp: (guild: string) => Promise<void>,
  dispatches: (guild: string) => (journal: Journal) => Promise<void>,
) {
  const clean = newSnowflake();
  await setUp(clean);
  await dispatches(clean)(journal);
  const expected = await events(clean);
  expect(expected.length).toBeGreaterThan(0);
  for (let survives = 0; survives < expected.length; survives++) {
    const guild = newSnowflake();
    await setUp(guild);
    const deliver = dispatches(guild);
    await expect(deliver(dyingJournal(survives))).rejects.toThrow('process died');
    await deliver(journal);
    expect({ survives, events: await events(guild) }).toEqual({ survives, events: expected });
  }
  return expected;
}

beforeAll(async () => {
  await connectMongo(await testMongoUrl(), testDbName('logs'), createLogger('test', 'silent'));
});
afterAll(async () => {
  await mongoose.connection.dropDatabase();
  await disconnectMongo();
  await stopTestMongo();
});

it('a member update redelivered after its snapshot was written journals the role and nickname change', async () => {
  const member = user('169378578432131074', 'rowan');
  const expected = await everyCrashPoint(
    async (guild) => {
      const added = dispatch('GUILD_MEMBER_ADD', { guild_id: guild, user: member, roles: [], nick: null });
      await memberAdded(journal, added as never, keyOf(added));
      await JournalEventModel.deleteMany({ guild });
    },
    (guild) => {
      const update = dispatch('GUILD_MEMBER_UPDATE', {
        guild_id: guild,
        user: member,
        roles: ['600000000000000001'],
        nick: 'ro',
      });
      return (j) => memberUpdated(j, update as never, keyOf(update));
    },
  );
  expect(expected.map((e) => e.kind)).toEqual(['member_roles', 'member_nickname']);
  expect(expected[0].data).toEqual({ added: ['600000000000000001'], removed: [] });
});

it('an emoji list redelivered after some snapshots were written journals every create, update and delete', async () => {
  const emoji = (id: string, name: string) => ({
    id,
    name,
    roles: [],
    require_colons: true,
    managed: false,
    animated: false,
    available: true,
  });
  const expected = await everyCrashPoint(
    async (guild) => {
      const first = dispatch('GUILD_EMOJIS_UPDATE', {
        guild_id: guild,
        emojis: [emoji('700000000000000001', 'wave'), emoji('700000000000000002', 'gone')],
      });
      await expressionsUpdated(journal, first as never, keyOf(first));
      await JournalEventModel.deleteMany({ guild });
    },
    (guild) => {
      const update = dispatch('GUILD_EMOJIS_UPDATE', {
        guild_id: guild,
        emojis: [emoji('700000000000000001', 'waving'), emoji('700000000000000003', 'new')],
      });
      return (j) => expressionsUpdated(j, update as never, keyOf(update));
    },
  );
  expect(expected.map((e) => `${e.kind}:${e.target}`).sort()).toEqual([
    'expression_create:700000000000000003',
    'expression_delete:700000000000000002',
    'expression_update:700000000000000001',
  ]);
});

it('a message edit and deletion redelivered after a crash journal the text as it was, and store the change', async () => {
  // the channel is known from its snapshot (a text channel), so the platform is never asked, nor the bot user needed
  const policy = {
    directory: new ChannelDirectory({} as PlatformApi),
    botUser: new BotUser({} as PlatformApi, createLogger('logs', 'silent')),
  };
  const author = user('169378578432131075', 'dario');
  const messages = (...dispatches: Dispatch[]) => dispatches.map((d) => delivered(d));
  const expected = await everyCrashPoint(
    async (guild) => {
      const channel = channelOf(guild);
      const created = dispatch('CHANNEL_CREATE', { id: channel, guild_id: guild, type: 0, name: 'general' });
      await channelChanged(journal, created as never, keyOf(created));
      await JournalEventModel.deleteMany({ guild });
      await ingestMessages(
        journal,
        policy,
        messages(
          dispatch('MESSAGE_CREATE', {
            id: messageOf(guild),
            guild_id: guild,
            channel_id: channel,
            author,
            content: 'first text',
            attachments: [],
            embeds: [],
          }),
        ),
      );
    },
    (guild) => {
      const batch = messages(
        dispatch('MESSAGE_UPDATE', {
          id: messageOf(guild),
          guild_id: guild,
          channel_id: channelOf(guild),
          author,
          content: 'edited text',
          edited_timestamp: new Date().toISOString(),
        }),
        dispatch('MESSAGE_DELETE', { id: messageOf(guild), guild_id: guild, channel_id: channelOf(guild) }),
      );
      return (j) => ingestMessages(j, policy, batch);
    },
  );
  expect(expected).toEqual([
    {
      kind: 'message_edit',
      target: author.id,
      data: { message: 'message', before: 'first text', after: 'edited text', original: 'first text' },
    },
    expect.objectContaining({ kind: 'message_delete', target: author.id }),
  ]);
  expect(expected[1].data.content).toBe('edited text');
  const stored = await MessageModel.find({ author: author.id }).lean();
  expect(stored.length).toBeGreaterThan(2);
  expect(stored.every((m) => m.content === 'edited text' && m.deletedAt instanceof Date)).toBe(true);
});

it('the same payload at the same sequence is a new event in a new gateway session, and one event when redelivered', async () => {
  const guild = newSnowflake();
  const banned = user('169378578432131076', 'eli');
  // a new session starts the sequence again: the member banned, unbanned, then banned again at the same sequence
  const ban = { op: 0, t: 'GUILD_BAN_ADD', s: 7, d: { guild_id: guild, user: banned } } as unknown as Dispatch;
  await banChanged(journal, ban as never, keyOf(ban, 'session-a'));
  await banChanged(journal, ban as never, keyOf(ban, 'session-a'));
  expect((await events(guild)).map((e) => e.kind)).toEqual(['member_ban']);
  await banChanged(journal, ban as never, keyOf(ban, 'session-b'));
  expect((await events(guild)).map((e) => e.kind)).toEqual(['member_ban', 'member_ban']);
});
