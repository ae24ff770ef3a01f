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
import { watchAuditEntry } from '../src/antinuke/detect';
import { AntinukeIncidentModel, AntinukeSettingsModel } from '../src/antinuke/model';
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
  // as the first delivery would have, it answers the event it was given to (so no blind change is journaled)
  expect(await journal.addSource(source(guild))).toMatchObject({ guild, actor: MODERATOR });
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

describe('an audit entry that set off an anti-nuke response, redelivered after the process died half-way', () => {
  const NUKER = '169378578432131092';
  const NUKER_ROLE = '169378578432131093';
  const PLAIN_ROLE = '169378578432131094';
  const BOT_ROLE = '169378578432131095';
  const BOT = '169378578432131096';

  /** A platform where the nuker holds a role with Manage Channels below the bot's; counts member edits. */
  function platform() {
    let roles = [NUKER_ROLE, PLAIN_ROLE];
    const edits: string[][] = [];
    const api = {
      guilds: {
        get: async () => ({
          owner_id: '169378578432131097',
          roles: [
            { id: NUKER_ROLE, permissions: String(1n << 4n), position: 2, managed: false },
            { id: PLAIN_ROLE, permissions: '0', position: 1, managed: false },
            { id: BOT_ROLE, permissions: '8', position: 10, managed: false },
          ],
        }),
        getMember: async (_guild: string, user: string) =>
          user === BOT ? { roles: [BOT_ROLE] } : { roles: [...roles], user: { id: user } },
        editMember: async (_guild: string, _user: string, body: { roles: string[] }) => {
          roles = body.roles;
          edits.push(body.roles);
        },
      },
    } as unknown as PlatformApi;
    return { api, edits, roles: () => roles };
  }

  const entry = (guild: string) => ({
    id: newSnowflake(),
    guild_id: guild,
    user_id: NUKER,
    target_id: newSnowflake(),
    action_type: 12,
  });

  async function nukedGuild() {
    const guild = newSnowflake();
    await AntinukeSettingsModel.create({
      _id: guild,
      enabled: true,
      limits: { channelDelete: { count: 3, seconds: 60 } },
      exemptRoles: [],
      exemptUsers: [],
      response: 'strip_roles',
      timeoutMinutes: 60,
      updatedAt: new Date(),
    });
    return { guild, entries: [entry(guild), entry(guild), entry(guild)] };
  }

  const response = async (guild: string) => {
    const row = await JournalEventModel.findOne({ guild, kind: 'antinuke_response' }).lean<EventRow>();
    const { response, rolesRemoved, rolesKept, failure } = row?.data ?? {};
    return { response, rolesRemoved, rolesKept, failure };
  };

  it('journals the roles the first attempt removed, once its claim lapsed', async () => {
    const clean = await nukedGuild();
    const once = platform();
    for (const e of clean.entries) await watchAuditEntry({ platform: once.api, journal, botUserId: BOT }, e as never);
    const expected = await response(clean.guild);
    expect(expected).toEqual({ response: 'strip_roles', rolesRemoved: [NUKER_ROLE], rolesKept: [], failure: null });

    const { guild, entries } = await nukedGuild();
    const crashed = platform();
    const deps = { platform: crashed.api, journal, botUserId: BOT };
    for (const e of entries.slice(0, 2)) await watchAuditEntry(deps, e as never);
    // killed after the member edit, before the journal event: nothing after runs (the claim is not released)
    let dead = false;
    const dying = {
      record: async () => {
        dead = true;
        throw new Error('process died');
      },
    } as unknown as Journal;
    const findOneAndUpdate = AntinukeIncidentModel.findOneAndUpdate.bind(AntinukeIncidentModel);
    jest.spyOn(AntinukeIncidentModel, 'findOneAndUpdate').mockImplementation(((...args: never[]) => {
      if (dead) throw new Error('process died');
      return (findOneAndUpdate as (...a: never[]) => unknown)(...args);
    }) as never);
    await expect(watchAuditEntry({ ...deps, journal: dying }, entries[2] as never)).rejects.toThrow('process died');
    jest.restoreAllMocks();
    expect(crashed.roles()).toEqual([PLAIN_ROLE]);
    // redelivered while the dead responder's claim holds: retried later, not dropped
    await expect(watchAuditEntry(deps, entries[2] as never)).rejects.toThrow('not finished');
    await AntinukeIncidentModel.updateOne({ guild }, { $set: { 'lease.until': new Date(0) } });
    await watchAuditEntry(deps, entries[2] as never);
    expect(await response(guild)).toEqual(expected);
    expect(crashed.roles()).toEqual([PLAIN_ROLE]);
  });
});
