import type { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { waitFor } from '@guildhall/testkit';
import {
  AuditLogEvent,
  GatewayCloseCodes,
  type GatewayDispatchPayload,
  GatewayIntentBits,
  GatewayOpcodes,
  Routes,
} from 'discord-api-types/v10';
import { WebSocket } from 'ws';
import { freshGuild } from './support/freshGuild';

const INTENTS =
  GatewayIntentBits.Guilds |
  GatewayIntentBits.GuildMembers |
  GatewayIntentBits.GuildModeration |
  GatewayIntentBits.GuildExpressions |
  GatewayIntentBits.GuildMessages |
  GatewayIntentBits.MessageContent;

type Named<T extends string> = Extract<GatewayDispatchPayload, { t: T }>;

describe('simulator gateway, driven by @discordjs/ws', () => {
  let fake: FakePlatform;
  let rest: REST;
  let seed: ReturnType<typeof sampleGuild>;
  const managers: WebSocketManager[] = [];

  beforeAll(async () => {
    fake = await startFakePlatform({
      invalidBotToken: 'refused-token',
      gateway: { privilegedIntents: GatewayIntentBits.GuildMembers | GatewayIntentBits.MessageContent },
    });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    ({ seed, rest } = freshGuild(fake));
  });
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.destroy()));
  });

  /** A connected manager and every dispatch it received, in order. */
  async function connect(intents = INTENTS) {
    const manager = new WebSocketManager({ token: 'test-token', intents, rest });
    managers.push(manager);
    const received: GatewayDispatchPayload[] = [];
    manager.on(WebSocketShardEvents.Dispatch, (payload) => received.push(payload));
    const of = <T extends `${GatewayDispatchPayload['t']}`>(t: T) => received.filter((p): p is Named<T> => p.t === t);
    return { manager, received, of };
  }

  it('answers GET /gateway/bot with the gateway URL, shards and session start limit', async () => {
    const info = (await rest.get(Routes.gatewayBot())) as {
      url: string;
      shards: number;
      session_start_limit: { remaining: number };
    };
    expect(info.url).toBe(fake.gatewayUrl);
    expect(info.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/gateway$/);
    expect(info.shards).toBe(1);
    expect(info.session_start_limit.remaining).toBeGreaterThan(0);
  });

  it('sends READY then GUILD_CREATE with only the bot as member without GUILD_PRESENCES', async () => {
    const { manager, received, of } = await connect();
    await manager.connect();
    const create = (await waitFor(() => of('GUILD_CREATE')[0])).d;
    expect(received[0].t).toBe('READY');
    expect(received[0].s).toBe(1);
    const ready = of('READY')[0].d;
    expect(ready.guilds).toEqual([{ id: seed.id, unavailable: true }]);
    expect(ready.resume_gateway_url).toBe(fake.gatewayUrl);
    expect(create.id).toBe(seed.id);
    expect(create.member_count).toBe(6);
    expect(create.members.map((m) => m.user.id)).toEqual([fake.botUserId]);
    expect(create.channels.map((c) => c.id)).toEqual(expect.arrayContaining([seed.ids.general, seed.ids.forum]));
  });

  it('sends GUILD_CREATE for a guild the bot joins while the session runs', async () => {
    const { manager, of } = await connect();
    await manager.connect();
    await waitFor(() => of('GUILD_CREATE')[0]);
    const second = sampleGuild();
    fake.seedGuild(second);
    const creates = await waitFor(
      () => of('GUILD_CREATE'),
      (c) => c.length === 2,
    );
    expect(creates[1].d.id).toBe(second.id);
  });

  it('delivers a REST ban as GUILD_BAN_ADD, GUILD_MEMBER_REMOVE and audit entry 22 with the decoded reason', async () => {
    const { manager, of } = await connect();
    await manager.connect();
    await waitFor(() => of('GUILD_CREATE')[0]);
    await rest.put(Routes.guildBan(seed.id, seed.ids.member), { body: {}, reason: 'spam: ünïcode' });
    const audit = await waitFor(() => of('GUILD_AUDIT_LOG_ENTRY_CREATE')[0]);
    expect(of('GUILD_BAN_ADD')[0].d).toMatchObject({ guild_id: seed.id, user: { id: seed.ids.member } });
    expect(of('GUILD_MEMBER_REMOVE')[0].d).toMatchObject({ guild_id: seed.id, user: { id: seed.ids.member } });
    expect(audit.d).toMatchObject({
      guild_id: seed.id,
      action_type: AuditLogEvent.MemberBanAdd,
      target_id: seed.ids.member,
      user_id: fake.botUserId,
      reason: 'spam: ünïcode',
    });
  });

  it('RESUMEs a dropped connection and replays the dispatches it missed', async () => {
    const { manager, of } = await connect();
    await manager.connect();
    await waitFor(() => of('GUILD_CREATE')[0]);
    const resumed = new Promise<void>((resolve) => manager.once(WebSocketShardEvents.Resumed, () => resolve()));
    fake.gateway.dropConnections();
    await fake.actAsUser(seed.ids.member).sendMessage(seed.ids.general, 'sent while the bot was away');
    await resumed;
    const message = await waitFor(() => of('MESSAGE_CREATE')[0]);
    expect(message.d).toMatchObject({ content: 'sent while the bot was away', author: { id: seed.ids.member } });
    expect(of('READY')).toHaveLength(1);
    const sequences = of('MESSAGE_CREATE').map((p) => p.s);
    expect(sequences).toEqual([3]);
  });

  it('answers a RESUME of an expired session with INVALID_SESSION, after which the client identifies anew', async () => {
    const { manager, of } = await connect();
    await manager.connect();
    await waitFor(() => of('GUILD_CREATE')[0]);
    fake.gateway.expireSessions();
    fake.gateway.dropConnections();
    const readies = await waitFor(
      () => of('READY'),
      (r) => r.length === 2,
      20_000,
    );
    expect(readies[1].d.session_id).not.toBe(readies[0].d.session_id);
    expect(readies[1].s).toBe(1);
  }, 30_000);

  it('asks clients to reconnect (op 7) and they RESUME the same session', async () => {
    const { manager, of } = await connect();
    await manager.connect();
    await waitFor(() => of('GUILD_CREATE')[0]);
    const resumed = new Promise<void>((resolve) => manager.once(WebSocketShardEvents.Resumed, () => resolve()));
    fake.gateway.requestReconnect();
    await resumed;
    await rest.delete(Routes.guildMember(seed.id, seed.ids.member), { reason: 'kick' });
    await waitFor(() => of('GUILD_MEMBER_REMOVE')[0]);
    expect(of('READY')).toHaveLength(1);
  });

  it('answers REQUEST_GUILD_MEMBERS (op 8) with GUILD_MEMBERS_CHUNK carrying the nonce', async () => {
    const { manager, of } = await connect();
    await manager.connect();
    await waitFor(() => of('GUILD_CREATE')[0]);
    await manager.send(0, {
      op: GatewayOpcodes.RequestGuildMembers,
      d: { guild_id: seed.id, query: '', limit: 0, nonce: 'all' },
    });
    await manager.send(0, {
      op: GatewayOpcodes.RequestGuildMembers,
      d: { guild_id: seed.id, user_ids: [seed.ids.admin, '1'], nonce: 'some' },
    });
    await manager.send(0, {
      op: GatewayOpcodes.RequestGuildMembers,
      d: { guild_id: seed.id, query: 'AL', limit: 10, nonce: 'query' },
    });
    const chunks = await waitFor(
      () => of('GUILD_MEMBERS_CHUNK'),
      (c) => c.length === 3,
    );
    const byNonce: Record<string, Named<'GUILD_MEMBERS_CHUNK'>['d']> = Object.fromEntries(
      chunks.map((c) => [c.d.nonce, c.d]),
    );
    expect(byNonce.all.members).toHaveLength(6);
    expect(byNonce.all).toMatchObject({ chunk_index: 0, chunk_count: 1 });
    expect(byNonce.some.members.map((m) => m.user.id)).toEqual([seed.ids.admin]);
    expect(byNonce.some.not_found).toEqual(['1']);
    expect(byNonce.query.members.map((m) => m.user.username)).toEqual(['alice']);
  });

  it('closes with 4014 when a privileged intent is not enabled for the application', async () => {
    const manager = new WebSocketManager({
      token: 'test-token',
      intents: GatewayIntentBits.Guilds | GatewayIntentBits.GuildPresences,
      rest,
    });
    managers.push(manager);
    const failures: Error[] = [];
    manager.on(WebSocketShardEvents.Error, (error) => failures.push(error));
    manager.connect().catch((error: Error) => failures.push(error));
    await waitFor(
      () => failures,
      (f) => f.length > 0,
    );
    expect(failures.map((f) => f.message)).toContain('Used disallowed intents');
    expect(await closeCodeFor(GatewayIntentBits.GuildPresences)).toBe(GatewayCloseCodes.DisallowedIntents);
  });

  it('closes with 4004 for a refused token and 4013 for undefined intent bits', async () => {
    expect(await closeCodeFor(GatewayIntentBits.Guilds, 'refused-token')).toBe(GatewayCloseCodes.AuthenticationFailed);
    expect(await closeCodeFor(1 << 30)).toBe(GatewayCloseCodes.InvalidIntents);
  });

  it('sends MESSAGE_CREATE without content to a session lacking MESSAGE_CONTENT, unless the bot is mentioned', async () => {
    const { manager, of } = await connect(GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages);
    await manager.connect();
    await waitFor(() => of('GUILD_CREATE')[0]);
    const member = fake.actAsUser(seed.ids.member);
    await member.sendMessage(seed.ids.general, 'secret words');
    await member.sendMessage(seed.ids.general, `<@${fake.botUserId}> help`);
    const [plain, mention] = await waitFor(
      () => of('MESSAGE_CREATE'),
      (m) => m.length === 2,
    );
    expect(plain.d.content).toBe('');
    expect(mention.d.content).toBe(`<@${fake.botUserId}> help`);
  });

  /** The close code the gateway answers a raw IDENTIFY with. */
  async function closeCodeFor(intents: number, token = 'test-token'): Promise<number> {
    const socket = new WebSocket(`${fake.gatewayUrl}?v=10&encoding=json`);
    socket.on('open', () =>
      socket.send(JSON.stringify({ op: GatewayOpcodes.Identify, d: { token, intents, properties: {} } })),
    );
    return new Promise((resolve) => socket.on('close', (code) => resolve(code)));
  }
});
