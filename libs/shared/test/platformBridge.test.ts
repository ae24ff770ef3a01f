import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, EventBus } from '@guildhall/shared';
import { BRIDGE_INTENTS, type Bridge, startBridge } from '@guildhall/shared/platformBridge';
import { deleteNamespace, messageCreate, testNamespace, testNatsUrl, waitFor } from '@guildhall/shared/testing';
import { GatewayIntentBits, GatewayOpcodes } from 'discord-api-types/v10';
import { type WebSocket, WebSocketServer } from 'ws';

const logger = createLogger('bridge-test', 'silent');
const SESSION = 'fake-session-7f3a';
const TOKEN = 'bridge-test-token';

type Dispatch = { t: string; s: number; op: 0; d: object };

/** A gateway dispatch as the fake sends it. */
function dispatch(t: string, s: number, d: object): Dispatch {
  return { t, s, op: 0, d };
}

const guildId = '1300000000000000001';
const channelId = '1300000000000000002';
const userId = '1300000000000000003';
const author = { id: userId, username: 'mira', discriminator: '0', global_name: 'Mira', avatar: null };
const ready = dispatch('READY', 1, {
  v: 10,
  user: {
    id: '1300000000000000009',
    username: 'Guildhall',
    discriminator: '0',
    global_name: null,
    avatar: null,
    bot: true,
  },
  guilds: [{ id: guildId, unavailable: true }],
  session_id: SESSION,
  resume_gateway_url: '',
  shard: [0, 1],
  application: { id: '1300000000000000009', flags: 0 },
});
const beforeDrop = [
  dispatch(
    'MESSAGE_CREATE',
    2,
    messageCreate({
      id: '1300000000000000100',
      channel_id: channelId,
      guild_id: guildId,
      author,
      content: 'hello there',
      timestamp: '2025-03-01T10:00:00.000000+00:00',
    }),
  ),
  dispatch('MESSAGE_DELETE', 3, { id: '1300000000000000100', channel_id: channelId, guild_id: guildId }),
  dispatch('GUILD_MEMBER_REMOVE', 4, { guild_id: guildId, user: author }),
];
const missed = [
  dispatch('INTERACTION_CREATE', 5, {
    id: '1300000000000000200',
    application_id: '1300000000000000009',
    type: 3,
    token: 'interaction-token',
    version: 1,
    guild_id: guildId,
    channel_id: channelId,
    data: { custom_id: 'ticket:open:665f1c2a9b3e4d0012a0c0de', component_type: 2 },
  }),
  dispatch('GUILD_BAN_ADD', 6, { guild_id: guildId, user: author }),
];
const resumed = dispatch('RESUMED', 7, {});
const afterResume = [dispatch('GUILD_BAN_REMOVE', 8, { guild_id: guildId, user: author })];

/**
 * A fake platform gateway on one port: `GET /api/v10/gateway/bot` for the REST side, and a WebSocket gateway that
 * says HELLO, answers IDENTIFY with READY and three dispatches, then drops the TCP connection; the next connection
 * must RESUME, and gets the last event it saw again (to prove de-duplication), the two it missed, RESUMED and one more.
 */
class FakeGateway {
  readonly identifies: Array<Record<string, unknown>> = [];
  readonly resumes: Array<Record<string, unknown>> = [];
  readonly gatewayAuth: string[] = [];
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private connections = 0;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      if (req.url === '/api/v10/gateway/bot') {
        this.gatewayAuth.push(String(req.headers.authorization));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            url: this.url,
            shards: 1,
            session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
          }),
        );
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: '404: Not Found', code: 0 }));
    });
    this.wss = new WebSocketServer({ server: this.server });
    this.wss.on('connection', (ws) => this.onConnection(ws));
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const { port } = this.server.address() as AddressInfo;
    this.url = `ws://127.0.0.1:${port}`;
    return `http://127.0.0.1:${port}/api`;
  }

  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    await new Promise((r) => this.wss.close(r));
    await new Promise((r) => this.server.close(r));
  }

  private onConnection(ws: WebSocket): void {
    const n = ++this.connections;
    const send = (p: unknown) => ws.send(JSON.stringify(p));
    send({ op: GatewayOpcodes.Hello, d: { heartbeat_interval: 41_250 }, s: null, t: null });
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> };
      if (msg.op === GatewayOpcodes.Heartbeat) send({ op: GatewayOpcodes.HeartbeatAck, d: null, s: null, t: null });
      if (msg.op === GatewayOpcodes.Identify && n === 1) {
        this.identifies.push(msg.d);
        for (const p of [{ ...ready, d: { ...ready.d, resume_gateway_url: this.url } }, ...beforeDrop]) send(p);
        setTimeout(() => ws.terminate(), 300);
      }
      if (msg.op === GatewayOpcodes.Resume) {
        this.resumes.push(msg.d);
        const from = Number(msg.d.seq);
        for (const p of [...beforeDrop, ...missed].filter((e) => e.s >= from)) send(p);
        send(resumed);
        for (const p of afterResume) send(p);
      }
    });
  }
}

/** Every message of the namespace's PLATFORM stream, in stream order. */
async function platformStream(bus: EventBus) {
  const name = bus.streamName('PLATFORM');
  const info = await bus.jsm.streams.info(name);
  const out: Array<{ subject: string; msgId: string | undefined; data: unknown }> = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(name, { seq });
    if (!m) continue;
    out.push({ subject: m.subject, msgId: m.header?.get('Nats-Msg-Id'), data: m.json() });
  }
  return out;
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

  it('identifies with the token and intents, then publishes every dispatch once across a drop and RESUME', async () => {
    bridge = await startBridge({ token: TOKEN, natsUrl: testNatsUrl(), namespace: ns, logger, restUrl });
    const expected = [ready, ...beforeDrop, ...missed, resumed, ...afterResume];
    await waitFor(async () => (await platformStream(bus)).length >= expected.length && gateway.resumes.length > 0);
    await new Promise((r) => setTimeout(r, 300));

    expect(gateway.gatewayAuth).toEqual([`Bot ${TOKEN}`]);
    expect(gateway.identifies).toHaveLength(1);
    expect(gateway.identifies[0]).toMatchObject({ token: TOKEN, intents: BRIDGE_INTENTS, shard: [0, 1] });
    for (const bit of [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMembers,
      GatewayIntentBits.GuildModeration,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.GuildExpressions,
      GatewayIntentBits.GuildMessageReactions,
    ])
      expect(BRIDGE_INTENTS & bit).toBe(bit);
    expect(gateway.resumes).toEqual([{ token: TOKEN, session_id: SESSION, seq: 4 }]);

    const stored = await platformStream(bus);
    expect(stored.map((m) => m.subject)).toEqual(expected.map((p) => `${ns}.platform.dispatch.${p.t}`));
    expect(stored.map((m) => m.msgId)).toEqual(expected.map((p) => `0:${SESSION}:${p.s}`));
    expect(stored[0].data).toEqual({ ...ready, d: { ...ready.d, resume_gateway_url: gateway.url } });
    expect(stored.slice(1).map((m) => m.data)).toEqual(expected.slice(1));
    expect(bridge.published()).toBe(expected.length + 1);
  });

  it('stops cleanly and publishes nothing afterwards', async () => {
    const before = (await platformStream(bus)).length;
    await bridge?.stop();
    await bridge?.stop();
    expect((await platformStream(bus)).length).toBe(before);
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
