import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayOpcodes } from 'discord-api-types/v10';
import { WebSocket, WebSocketServer } from 'ws';

export type Dispatch = { t: string; s: number; op: 0; d: Record<string, unknown> };

interface Session {
  id: string;
  shard: [number, number];
  /** Every dispatch of the session, in sequence order (what a RESUME replays from). */
  log: Dispatch[];
  socket: WebSocket | null;
}

export const BOT_USER = {
  id: '1300000000000000009',
  username: 'Guildhall',
  discriminator: '0',
  global_name: null,
  avatar: null,
  bot: true,
};

/**
 * A fake platform gateway on one port, as Discord documents it: `GET /api/v10/gateway/bot` (URL and recommended
 * shards), `GET /api/v10/guilds/{guild}/channels` (from `guildChannels`; 404 Unknown Guild otherwise), and a
 * WebSocket gateway that says HELLO, acks heartbeats, answers IDENTIFY with READY (a new session per shard), RESUME with every dispatch after the given sequence (plus `resumeOverlap` already-sent ones, to prove
 * de-duplication) then RESUMED, an unknown session with INVALID_SESSION, and REQUEST_GUILD_MEMBERS with one
 * GUILD_MEMBERS_CHUNK. Sessions outlive their connection; `emit` appends to a shard's session and sends when connected.
 */
export class FakeGateway {
  readonly identifies: Array<Record<string, unknown>> = [];
  readonly resumes: Array<Record<string, unknown>> = [];
  readonly memberRequests: Array<Record<string, unknown>> = [];
  readonly closeCodes: number[] = [];
  readonly gatewayAuth: string[] = [];
  /** Shards `/gateway/bot` recommends. */
  recommendedShards = 1;
  /** `GET /guilds/{guild}/channels` answers: each guild's channels (Discord lists no threads there). */
  readonly guildChannels = new Map<string, Array<{ id: string; type: number; name: string }>>();
  /** Guild ids of the channel list requests, in order. */
  readonly channelListRequests: string[] = [];
  /** Already-delivered dispatches re-sent at each RESUME. */
  resumeOverlap = 1;
  /** While true, IDENTIFY is answered only when `holdReady` turns false (see `releaseReady`). */
  holdReady = false;
  private readonly waitingReady: Array<() => void> = [];
  private readonly sessions = new Map<string, Session>();
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private counter = 0;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      if (req.url === '/api/v10/gateway/bot') {
        this.gatewayAuth.push(String(req.headers.authorization));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            url: this.url,
            shards: this.recommendedShards,
            session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 16 },
          }),
        );
        return;
      }
      const channelList = /^\/api\/v10\/guilds\/(\d+)\/channels$/.exec(req.url ?? '');
      const channels = channelList && this.guildChannels.get(channelList[1] as string);
      if (channelList && req.method === 'GET') this.channelListRequests.push(channelList[1] as string);
      if (channels && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(channels));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          channelList ? { message: 'Unknown Guild', code: 10004 } : { message: '404: Not Found', code: 0 },
        ),
      );
    });
    this.wss = new WebSocketServer({ server: this.server });
    this.wss.on('connection', (ws) => this.onConnection(ws));
  }

  /** Listens on a free loopback port; returns the REST root (`PLATFORM_API_URL`). */
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

  /** The live session of a shard (the newest one identified). */
  session(shardId: number): Session {
    const all = [...this.sessions.values()].filter((s) => s.shard[0] === shardId);
    const last = all.at(-1);
    if (!last) throw new Error(`shard ${shardId} never identified`);
    return last;
  }

  /** True while the shard's session has an open connection. */
  connected(shardId: number): boolean {
    return this.session(shardId).socket?.readyState === WebSocket.OPEN;
  }

  /** Appends a dispatch to the shard's session (sent at once when connected, else replayed by a RESUME). */
  emit(shardId: number, t: string, d: Record<string, unknown>): Dispatch {
    const session = this.session(shardId);
    const p: Dispatch = { t, s: session.log.length + 1, op: 0, d };
    session.log.push(p);
    session.socket?.send(JSON.stringify(p));
    return p;
  }

  /** Drops the shard's TCP connection without a close frame (the client resumes). */
  drop(shardId: number): void {
    this.session(shardId).socket?.terminate();
  }

  releaseReady(): void {
    this.holdReady = false;
    for (const go of this.waitingReady.splice(0)) go();
  }

  private onConnection(ws: WebSocket): void {
    const send = (p: unknown) => ws.send(JSON.stringify(p));
    let session: Session | null = null;
    send({ op: GatewayOpcodes.Hello, d: { heartbeat_interval: 41_250 }, s: null, t: null });
    ws.on('close', (code) => {
      this.closeCodes.push(code);
      if (session?.socket === ws) session.socket = null;
    });
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> };
      if (msg.op === GatewayOpcodes.Heartbeat) send({ op: GatewayOpcodes.HeartbeatAck, d: null, s: null, t: null });
      if (msg.op === GatewayOpcodes.Identify) {
        this.identifies.push(msg.d);
        const answer = () => {
          const shard = msg.d.shard as [number, number];
          session = { id: `session-${shard[0]}-${++this.counter}`, shard, log: [], socket: ws };
          this.sessions.set(session.id, session);
          this.emit(shard[0], 'READY', {
            v: 10,
            user: BOT_USER,
            guilds: [],
            session_id: session.id,
            resume_gateway_url: this.url,
            shard,
            application: { id: BOT_USER.id, flags: 0 },
          });
        };
        if (this.holdReady) this.waitingReady.push(answer);
        else answer();
      }
      if (msg.op === GatewayOpcodes.Resume) {
        this.resumes.push(msg.d);
        const found = this.sessions.get(String(msg.d.session_id));
        if (!found) {
          send({ op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
          return;
        }
        session = found;
        found.socket = ws;
        const from = Number(msg.d.seq) - this.resumeOverlap;
        for (const p of found.log.filter((e) => e.s > from && e.t !== 'RESUMED')) send(p);
        this.emit(found.shard[0], 'RESUMED', {});
      }
      if (msg.op === GatewayOpcodes.RequestGuildMembers && session) {
        this.memberRequests.push(msg.d);
        this.emit(session.shard[0], 'GUILD_MEMBERS_CHUNK', {
          guild_id: msg.d.guild_id,
          members: [
            {
              user: {
                id: '1300000000000000003',
                username: 'mira',
                discriminator: '0',
                global_name: 'Mira',
                avatar: null,
              },
              roles: [],
              joined_at: '2025-03-01T10:00:00.000000+00:00',
              deaf: false,
              mute: false,
              flags: 0,
            },
          ],
          chunk_index: 0,
          chunk_count: 1,
        });
      }
    });
  }
}
