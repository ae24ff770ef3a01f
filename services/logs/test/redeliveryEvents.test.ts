import {
  connectMongo,
  createLogger,
  disconnectMongo,
  newSnowflake,
  type Outbox,
  type PlatformApi,
} from '@guildhall/shared';
import { stopTestMongo, testDbName, testMongoUrl } from '@guildhall/testkit';
import mongoose from 'mongoose';
import { type EventRow, JournalEventModel } from '../src/journal/model';
import { Journal, type NewEvent } from '../src/journal/recordEvent';
import { ActorSourceModel } from '../src/journal/sources';
import { type CaseData, logNewCase } from '../src/posting/logCase';
import { SettingsModel } from '../src/settings/model';

/**
 * Logs' handlers of service events and audit entries, redelivered after the process died half-way through them, end
 * as one uninterrupted delivery does: the crash is a write (or a platform call, or an emit) that throws once.
 */
const TARGET = '169378578432131090';
const MODERATOR = '169378578432131091';
const journal = new Journal(60_000, async () => undefined);

const ban = (guild: string): NewEvent => ({
  guild,
  kind: 'member_ban',
  target: TARGET,
  targetName: 'troll',
  channel: null,
  data: {},
  dedupe: `GUILD_BAN_ADD:${guild}`,
});
const source = (guild: string) => ({
  _id: `case:${guild}:7`,
  guild,
  kind: 'member_ban' as const,
  target: TARGET,
  actor: MODERATOR,
  actorName: 'modperson',
  source: 'service' as const,
  viaService: true,
  extra: { case: 7, reason: 'raiding' },
  receivedAt: new Date(),
});
/** The journal's write giving an event its actor dies once, as the process would between claim and write. */
const dieOnceGivingActor = () =>
  jest
    .spyOn(JournalEventModel, 'findOneAndUpdate')
    .mockImplementationOnce(() => ({ lean: () => Promise.reject(new Error('process died')) }) as never);
const actorOf = async (guild: string) => {
  const row = await JournalEventModel.findOne({ guild }).lean<EventRow>();
  return { actor: row?.actor, actorName: row?.actorName, viaService: row?.viaService, case: row?.data.case };
};
const GIVEN = { actor: MODERATOR, actorName: 'modperson', viaService: true, case: 7 };

beforeAll(async () => {
  await connectMongo(await testMongoUrl(), testDbName('logs-redelivery-events'), createLogger('test', 'silent'));
});
afterAll(async () => {
  await mongoose.connection.dropDatabase();
  await disconnectMongo();
  await stopTestMongo();
});
afterEach(() => jest.restoreAllMocks());

it('a case source redelivered after it claimed its event, before giving it the actor, gives it', async () => {
  const guild = newSnowflake();
  await journal.record(ban(guild));
  dieOnceGivingActor();
  await expect(journal.addSource(source(guild))).rejects.toThrow('process died');
  await journal.addSource(source(guild));
  expect(await actorOf(guild)).toEqual(GIVEN);
});

it('an event redelivered after it claimed a waiting source, before taking its actor, takes it', async () => {
  const guild = newSnowflake();
  await journal.addSource(source(guild));
  dieOnceGivingActor();
  await expect(journal.record(ban(guild))).rejects.toThrow('process died');
  await journal.record(ban(guild));
  expect(await actorOf(guild)).toEqual(GIVEN);
  expect((await ActorSourceModel.findById(`case:${guild}:7`).lean())?.claimedBy).toBeTruthy();
});

describe('a new case redelivered after a crash', () => {
  const kase = (guild: string): CaseData => ({
    guild,
    number: 7,
    action: 'ban',
    target: TARGET,
    targetName: 'troll',
    moderator: MODERATOR,
    moderatorName: 'modperson',
    reason: 'raiding',
    status: 'active',
    expiresAt: null,
    logChannel: null,
    logMessage: null,
    createdAt: new Date().toISOString(),
  });

  /** A platform whose posts are counted, and an outbox keeping one event per key that dies on its first `dies`. */
  function deps(dies: number) {
    const posts: string[] = [];
    const events = new Map<string, unknown>();
    let left = dies;
    const platform = {
      channels: {
        createMessage: async (channel: string, body: { nonce?: string }) => {
          // the platform posts a nonce once (enforce_nonce)
          if (!posts.includes(`${channel}:${body.nonce}`)) posts.push(`${channel}:${body.nonce}`);
          return { id: '900000000000000001' };
        },
      },
    } as unknown as PlatformApi;
    const outbox = {
      emit: async (_guild: string, type: string, data: unknown, key: string) => {
        if (left-- > 0) throw new Error('process died');
        if (!events.has(key)) events.set(key, { type, data });
      },
    } as unknown as Outbox<'logs'>;
    return { platform, outbox, posts, events };
  }

  it('posts its log message once and publishes case.logged once', async () => {
    const clean = newSnowflake();
    const guild = newSnowflake();
    for (const g of [clean, guild])
      await SettingsModel.create({ _id: g, moderationChannel: '900000000000000002', updatedAt: new Date() });
    const once = deps(0);
    await logNewCase(once, kase(clean));
    const crashed = deps(1);
    await expect(logNewCase(crashed, kase(guild))).rejects.toThrow('process died');
    await logNewCase(crashed, kase(guild));
    expect(crashed.posts).toHaveLength(1);
    expect([...crashed.events.values()]).toEqual([...once.events.values()]);
    expect([...crashed.events.values()]).toEqual([
      {
        type: 'case.logged',
        data: { caseNumber: 7, logChannel: '900000000000000002', logMessage: '900000000000000001' },
      },
    ]);
  });
});
