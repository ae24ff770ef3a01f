import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Bridge, SESSION_BUCKET, startBridge, startBridgeService } from '@guildhall/bridge';
import { BRIDGE_INTENTS, createLogger, dispatchPartition, EventBus } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { Kvm } from '@nats-io/kv';
import { GatewayIntentBits } from 'discord-api-types/v10';
import { type Dispatch, FakeGateway } from './fakeGateway';

const logger = createLogger('bridge-test', 'silent');
const TOKEN = 'bridge-test-token';
const guildId = '1300000000000000001';
const channelId = '1300000000000000002';
const author = { id: '1300000000000000003', username: 'mira', discriminator: '0', global_name: 'Mira', avatar: null };

/** Every message of the namespace's PLATFORM stream, in stream order. */
async function platformStream(bus: EventBus) {
  const name = bus.streamName('PLATFORM');
  const info = await bus.jsm.streams.info(name);
  const out: Array<{ subject: string; msgId: string | undefined; data: Dispatch }> = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(name, { seq }).catch(() => null);
    if (m) out.push({ subject: m.subject, msgId: m.header?.get('Nats-Msg-Id'), data: m.json() });
  }
  return out;
}

/** Waits until the stream holds a dispatch of `session` with sequence `s`. */
async function storedUpTo(bus: EventBus, session: string, s: number) {
  return waitFor(
    () => platformStream(bus),
    (all) => all.some((m) => m.msgId === `0:${session}:${s}`),
    20_000,
  );
}

describe('platform bridge against a fake gateway', () => {
  const ns = testNamespace();
  const gateway = new FakeGateway();
  let restUrl: string;
  let bus: EventBus;
  let bridge: Bridge | undefined;

  beforeAll(async () => {
    restUrl = await gateway.listen();
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'bridge-test-reader', namespace: ns, logger });
  });
  afterAll(async () => {
    await bridge?.stop();
    await bus.close();
    await gateway.close();
    await deleteNamespace(ns);
  });

  it('identifies, publishes every dispatch once on its partition subject across a drop and RESUME', async () => {
    bridge = await startBridge({ token: TOKEN, natsUrl: testNatsUrl(), namespace: ns, logger, restUrl });
    expect(gateway.gatewayAuth[0]).toBe(`Bot ${TOKEN}`);
    expect(gateway.identifies).toHaveLength(1);
    expect(gateway.identifies[0]).toMatchObject({ token: TOKEN, intents: BRIDGE_INTENTS, shard: [0, 1] });
    for (const bit of [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.MessageContent])
      expect(BRIDGE_INTENTS & bit).toBe(bit);
    const session = gateway.session(0).id;
    gateway.emit(0, 'MESSAGE_CREATE', {
      id: '1300000000000000100',
      channel_id: channelId,
      guild_id: guildId,
      author,
      content: 'hello there',
    });
    gateway.emit(0, 'USER_UPDATE', { ...author, global_name: 'Mira B' });
    await storedUpTo(bus, session, 3);
    gateway.drop(0);
    gateway.emit(0, 'GUILD_BAN_ADD', { guild_id: guildId, user: author });
    gateway.emit(0, 'MESSAGE_DELETE', { id: '1300000000000000100', channel_id: channelId, guild_id: guildId });
    await waitFor(() => gateway.resumes.length === 1);
    expect(gateway.resumes[0]).toEqual({ token: TOKEN, session_id: session, seq: 3 });
    const last = gateway.emit(0, 'GUILD_BAN_REMOVE', { guild_id: guildId, user: author });
    const stored = await storedUpTo(bus, session, last.s);

    const expected = gateway.session(0).log;
    expect(stored.map((m) => m.data)).toEqual(expected);
    expect(stored.map((m) => m.msgId)).toEqual(expected.map((p) => `0:${session}:${p.s}`));
    const partition = Number(BigInt(guildId) % 16n);
    const group = (t: string) => (['MESSAGE_CREATE', 'MESSAGE_DELETE'].includes(t) ? 'message' : 'other');
    expect(stored.map((m) => m.subject)).toEqual(
      expected.map((p) => `${ns}.platform.dispatch.${p.d.guild_id ? partition : 0}.${group(p.t)}.${p.t}`),
    );
    expect(dispatchPartition('MESSAGE_CREATE', { guild_id: guildId })).toBe(partition);
    expect(dispatchPartition('GUILD_CREATE', { id: guildId })).toBe(partition);
    expect(dispatchPartition('GUILD_MEMBER_ADD', { guild_id: 'not-a-snowflake' })).toBe(0);
    expect(bridge.published()).toBe(expected.length + 1); // the overlapping replay was stored once, counted twice
  });

  it('requests every member of each GUILD_CREATE guild and publishes the GUILD_MEMBERS_CHUNK', async () => {
    const session = gateway.session(0).id;
    gateway.emit(0, 'GUILD_CREATE', { id: guildId, name: 'Lantern Hall', unavailable: false, members: [] });
    await waitFor(() => gateway.memberRequests.length === 1);
    expect(gateway.memberRequests[0]).toEqual({ guild_id: guildId, query: '', limit: 0 });
    const chunk = gateway.session(0).log.at(-1) as Dispatch;
    expect(chunk.t).toBe('GUILD_MEMBERS_CHUNK');
    const stored = await storedUpTo(bus, session, chunk.s);
    expect(stored.at(-1)?.subject).toBe(
      `${ns}.platform.dispatch.${Number(BigInt(guildId) % 16n)}.other.GUILD_MEMBERS_CHUNK`,
    );
  });

  it('persists the session: a restarted bridge RESUMEs from the last stored dispatch and stores replays once', async () => {
    const session = gateway.session(0).id;
    const lastStored = gateway.session(0).log.at(-1) as Dispatch;
    const kv = await new Kvm(bus.nc).open(bus.resourceName(SESSION_BUCKET));
    const resumePoint = async () => (await kv.get('shard-0'))?.json<{ sessionId: string; sequence: number }>();
    // The bridge persists a dispatch's resume point once it has JetStream's acknowledgement, which can come just
    // after the stream already shows the message: wait for it, so stopping is what is tested.
    await waitFor(resumePoint, (p) => p?.sequence === lastStored.s);
    await bridge?.stop();
    expect(gateway.closeCodes.at(-1)).toBe(4200);
    expect(await resumePoint()).toMatchObject({ sessionId: session, sequence: lastStored.s });

    const missed = [
      gateway.emit(0, 'MESSAGE_DELETE', { id: '1300000000000000101', channel_id: channelId, guild_id: guildId }),
      gateway.emit(0, 'GUILD_MEMBER_REMOVE', { guild_id: guildId, user: author }),
    ];
    const identifies = gateway.identifies.length;
    bridge = await startBridge({ token: TOKEN, natsUrl: testNatsUrl(), namespace: ns, logger, restUrl });
    expect(gateway.identifies).toHaveLength(identifies);
    expect(gateway.resumes.at(-1)).toEqual({ token: TOKEN, session_id: session, seq: lastStored.s });
    const resumed = gateway.session(0).log.at(-1) as Dispatch;
    const stored = await storedUpTo(bus, session, resumed.s);
    expect(stored.map((m) => m.data)).toEqual(gateway.session(0).log);
    for (const p of missed) expect(stored.filter((m) => m.msgId === `0:${session}:${p.s}`)).toHaveLength(1);
  });
});

describe('bridge service: sharding, readiness and metrics', () => {
  const ns = testNamespace();
  const gateway = new FakeGateway();
  let restUrl: string;

  beforeAll(async () => {
    restUrl = await gateway.listen();
  });
  afterAll(async () => {
    await gateway.close();
    await deleteNamespace(ns);
  });

  it('runs the StatefulSet ordinal share of the recommended shards; /readyz is 503 until they are READY', async () => {
    gateway.recommendedShards = 4;
    gateway.holdReady = true;
    const service = await startBridgeService({
      PORT: '0',
      LOG_LEVEL: 'silent',
      NATS_URL: testNatsUrl(),
      NATS_NAMESPACE: ns,
      PLATFORM_API_URL: restUrl,
      PLATFORM_BOT_TOKEN: TOKEN,
      BRIDGE_REPLICAS: '2',
      POD_NAME: 'bridge-1',
      METRICS_TOKEN: 'bridge-metrics-token',
    });
    try {
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      await waitFor(() => gateway.identifies.length === 2);
      expect(gateway.identifies.map((d) => d.shard).sort()).toEqual([
        [1, 4],
        [3, 4],
      ]);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
      gateway.releaseReady();
      const bridge = await service.started;
      expect(bridge.shardIds).toEqual([1, 3]);
      await waitFor(async () => (await fetch(`${service.url}/readyz`)).status === 200);
      const scrape = async () =>
        (await fetch(`${service.url}/metrics`, { headers: { authorization: 'Bearer bridge-metrics-token' } })).text();
      // READY means the shards are READY; their READY dispatches are published right after, asynchronously.
      await waitFor(async () =>
        /bridge_dispatches_published_total\{event="READY",service="bridge"\} 2/.test(await scrape()),
      );
      const metrics = await scrape();
      expect(metrics).toMatch(/bridge_shard_status\{shard="1",service="bridge"\} 3/);
      expect(metrics).toMatch(/bridge_shard_status\{shard="3",service="bridge"\} 3/);
      expect(metrics).toMatch(/bridge_dispatches_published_total\{event="READY",service="bridge"\} 2/);
      expect(metrics).toMatch(/bridge_buffered_dispatches\{service="bridge"\} 0/);
    } finally {
      await service.stop();
    }
  });

  it('refuses bad sharding configuration, naming the variables', async () => {
    const env = { PORT: '0', PLATFORM_BOT_TOKEN: TOKEN, NATS_URL: testNatsUrl() };
    await expect(startBridgeService({ ...env, BRIDGE_REPLICAS: '2' })).rejects.toThrow(/POD_NAME/);
    await expect(startBridgeService({ ...env, BRIDGE_REPLICAS: '2', POD_NAME: 'bridge-2' })).rejects.toThrow(
      /POD_NAME: ordinal 2/,
    );
    await expect(startBridgeService({ ...env, BRIDGE_SHARD_IDS: '0,x' })).rejects.toThrow(/BRIDGE_SHARD_IDS/);
    await expect(startBridgeService({ ...env, BRIDGE_SHARD_IDS: '1,5', BRIDGE_SHARD_COUNT: '4' })).rejects.toThrow(
      /BRIDGE_SHARD_IDS: every shard id must be below BRIDGE_SHARD_COUNT/,
    );
    await expect(startBridgeService({ PORT: '0' })).rejects.toThrow(/PLATFORM_BOT_TOKEN/);
  });
});

describe('platform bridge start failures', () => {
  it('rejects when the platform refuses the bot token', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: '401: Unauthorized', code: 0 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const ns = testNamespace();
    try {
      await expect(
        startBridge({
          token: 'bad',
          natsUrl: testNatsUrl(),
          namespace: ns,
          logger,
          restUrl: `http://127.0.0.1:${port}/api`,
        }),
      ).rejects.toThrow(/Unauthorized/);
    } finally {
      await new Promise((r) => server.close(r));
      await deleteNamespace(ns);
    }
  });
});
