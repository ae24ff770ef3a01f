import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import {
  ApplicationFlags,
  GatewayCloseCodes,
  type GatewayDispatchPayload,
  type GatewayIdentifyData,
  GatewayIntentBits,
  GatewayOpcodes,
  type GatewayReceivePayload,
  type GatewayRequestGuildMembersData,
  type GatewayResumeData,
  type GatewaySendPayload,
  PermissionFlagsBits,
  type RESTGetAPIGatewayBotResult,
} from 'discord-api-types/v10';
import { type WebSocket, WebSocketServer } from 'ws';
import type { PlatformState } from '../state';
import type { DispatchData, DispatchName } from './dispatch';
import { guildCreateData, memberChunks } from './guildCreate';
import { ALL_INTENTS, PRIVILEGED_INTENTS, receives, withoutContent } from './intents';

/** Path of the simulator gateway on the platform's HTTP server. */
export const GATEWAY_PATH = '/gateway';

/** Application settings and timings of the simulator gateway (see `FakePlatformOptions.gateway`). */
export interface GatewayOptions {
  /** Privileged intents the application may use (`GatewayIntentBits` bits); default all three. */
  privilegedIntents?: number;
  /** HELLO's `heartbeat_interval` in milliseconds; default 41250 (Discord's). */
  heartbeatIntervalMs?: number;
  /** `shards` GET /gateway/bot recommends; default 1. */
  recommendedShards?: number;
  /** How long a disconnected session stays resumable, in milliseconds; default 120000. */
  resumeWindowMs?: number;
  /** Dispatches kept per session for RESUME replay; default 1000. */
  replayBufferSize?: number;
}

interface Session {
  id: string;
  shard: [number, number];
  intents: number;
  largeThreshold: number;
  seq: number;
  /** Sent dispatches, oldest first, at most `replayBufferSize`. */
  buffer: GatewayDispatchPayload[];
  socket?: WebSocket;
  expiry?: NodeJS.Timeout;
}

interface Connection {
  socket: WebSocket;
  session?: Session;
}

/** Which shard a guild belongs to: `(guild_id >> 22) % num_shards`, as Discord routes guilds. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/**
 * Discord's real-time gateway (protocol v10, JSON, no compression) on the platform's HTTP server at
 * `ws://127.0.0.1:PORT/gateway`: HELLO, IDENTIFY -> READY + one GUILD_CREATE per guild of the shard, heartbeats,
 * RESUME with replay of missed dispatches (bounded buffer per session) or INVALID_SESSION, RECONNECT on request,
 * REQUEST_GUILD_MEMBERS -> GUILD_MEMBERS_CHUNK, the close codes 4001-4014, and every dispatch the platform emits
 * (`PlatformState.emit`) filtered by shard and intents.
 */
export class SimulatorGateway {
  private readonly wss: WebSocketServer;
  private readonly sessions = new Map<string, Session>();
  private readonly connections = new Set<Connection>();
  private readonly unsubscribe: () => void;
  readonly options: Required<GatewayOptions>;
  /** IDENTIFYs accepted so far (`session_start_limit` counts them down). */
  identifies = 0;
  /** REQUEST_GUILD_MEMBERS answered so far, one per guild answered with GUILD_MEMBERS_CHUNK. */
  memberRequests = 0;

  constructor(
    server: Server,
    private readonly state: PlatformState,
    readonly url: string,
    options: GatewayOptions,
    private readonly isValidToken: (token: string) => boolean,
  ) {
    this.options = {
      privilegedIntents: options.privilegedIntents ?? PRIVILEGED_INTENTS,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      recommendedShards: options.recommendedShards ?? 1,
      resumeWindowMs: options.resumeWindowMs ?? 120_000,
      replayBufferSize: options.replayBufferSize ?? 1000,
    };
    this.wss = new WebSocketServer({ server, path: GATEWAY_PATH });
    this.wss.on('connection', (socket, req) => this.accept(socket, req));
    this.unsubscribe = state.onDispatch((guildId, t, d) => this.fanOut(guildId, t, d));
  }

  /** Sessions that are identified and currently connected. */
  get connectedSessions(): number {
    return [...this.sessions.values()].filter((s) => s.socket).length;
  }

  /** The bot joined `guildId` (a guild seeded while sessions run): GUILD_CREATE to every session of its shard. */
  guildJoined(guildId: string): void {
    const guild = this.state.guilds.get(guildId);
    if (!guild) return;
    for (const session of this.sessions.values())
      if (shardOf(guild.id, session.shard[1]) === session.shard[0])
        this.deliver(
          session,
          'GUILD_CREATE',
          guildCreateData(this.state, guild, session.intents, session.largeThreshold),
        );
  }

  /** Sends RECONNECT (op 7) on every connection, asking clients to reconnect and RESUME. */
  requestReconnect(): void {
    for (const { socket } of this.connections)
      this.send(socket, { op: GatewayOpcodes.Reconnect, d: null, s: null, t: null } as never);
  }

  /** Drops every connection without a close frame (as a network failure does); sessions stay resumable. */
  dropConnections(): void {
    for (const { socket } of this.connections) socket.terminate();
  }

  /** Forgets every session, so the next RESUME gets INVALID_SESSION. */
  expireSessions(): void {
    for (const session of this.sessions.values()) clearTimeout(session.expiry);
    this.sessions.clear();
  }

  /** What GET /gateway/bot answers: this gateway's URL, the recommended shards, and the session start limit. */
  botInfo(): RESTGetAPIGatewayBotResult {
    return {
      url: this.url,
      shards: this.options.recommendedShards,
      session_start_limit: {
        total: 1000,
        remaining: Math.max(0, 1000 - this.identifies),
        reset_after: 86_400_000,
        max_concurrency: 1,
      },
    };
  }

  /** Closes every connection and stops accepting new ones. */
  async close(): Promise<void> {
    this.unsubscribe();
    this.expireSessions();
    for (const { socket } of this.connections) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(socket: WebSocket, req: IncomingMessage): void {
    const params = new URL(req.url ?? '/', 'http://gateway.local').searchParams;
    if ((params.get('v') ?? '10') !== '10')
      return void socket.close(GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version');
    if ((params.get('encoding') ?? 'json') !== 'json')
      return void socket.close(GatewayCloseCodes.DecodeError, 'Only JSON');
    const connection: Connection = { socket };
    this.connections.add(connection);
    socket.on('message', (raw) => this.receive(connection, raw.toString()));
    socket.on('close', (code) => this.disconnected(connection, code));
    socket.on('error', () => socket.terminate());
    this.send(socket, {
      op: GatewayOpcodes.Hello,
      d: { heartbeat_interval: this.options.heartbeatIntervalMs },
      s: null,
      t: null,
    });
  }

  private receive(connection: Connection, raw: string): void {
    const { socket, session } = connection;
    let payload: GatewaySendPayload | undefined;
    try {
      payload = JSON.parse(raw) as GatewaySendPayload;
    } catch {
      payload = undefined;
    }
    if (!payload || typeof payload !== 'object') {
      socket.close(GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
      return;
    }
    switch (payload.op) {
      case GatewayOpcodes.Heartbeat:
        this.send(socket, { op: GatewayOpcodes.HeartbeatAck, d: null, s: null, t: null } as never);
        break;
      case GatewayOpcodes.Identify:
        this.identify(connection, payload.d);
        break;
      case GatewayOpcodes.Resume:
        this.resume(connection, payload.d);
        break;
      case GatewayOpcodes.RequestGuildMembers:
      case GatewayOpcodes.PresenceUpdate:
      case GatewayOpcodes.VoiceStateUpdate:
      case GatewayOpcodes.RequestSoundboardSounds:
        if (!session) socket.close(GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
        else if (payload.op === GatewayOpcodes.RequestGuildMembers && payload.d)
          this.requestMembers(session, payload.d);
        break;
      default:
        socket.close(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
    }
  }

  private authenticated(connection: Connection, token: string | undefined): boolean {
    if (connection.session) {
      connection.socket.close(GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.');
      return false;
    }
    if (!token || !this.isValidToken(token.replace(/^Bot /, ''))) {
      connection.socket.close(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
      return false;
    }
    return true;
  }

  private identify(connection: Connection, d: GatewayIdentifyData): void {
    if (!this.authenticated(connection, d?.token)) return;
    const intents = Number(d.intents);
    if (!Number.isInteger(intents) || intents < 0 || (intents & ~ALL_INTENTS) !== 0)
      return void connection.socket.close(GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).');
    if ((intents & PRIVILEGED_INTENTS & ~this.options.privilegedIntents) !== 0)
      return void connection.socket.close(GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s).');
    const [shardId, shardCount] = d.shard ?? [0, 1];
    if (!(shardCount >= 1 && shardId >= 0 && shardId < shardCount))
      return void connection.socket.close(GatewayCloseCodes.InvalidShard, 'Invalid shard.');
    this.identifies += 1;
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      shard: [shardId, shardCount],
      intents,
      largeThreshold: Math.min(250, Math.max(50, d.large_threshold ?? 50)),
      seq: 0,
      buffer: [],
    };
    this.sessions.set(session.id, session);
    this.attach(connection, session);
    const guilds = [...this.state.guilds.values()].filter((g) => shardOf(g.id, shardCount) === shardId);
    this.deliver(session, 'READY', {
      v: 10,
      user: this.state.botUser,
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: this.url,
      shard: session.shard,
      application: {
        id: this.state.clientId,
        flags: this.applicationFlags(),
        flags_new: String(this.applicationFlags()),
      },
    });
    for (const guild of guilds)
      this.deliver(session, 'GUILD_CREATE', guildCreateData(this.state, guild, intents, session.largeThreshold));
  }

  private resume(connection: Connection, d: GatewayResumeData): void {
    if (!this.authenticated(connection, d?.token)) return;
    const session = this.sessions.get(d.session_id);
    const oldest = session?.buffer[0]?.s ?? (session ? session.seq + 1 : 0);
    if (!session || d.seq < oldest - 1 || d.seq > session.seq) {
      this.send(connection.socket, { op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
      return;
    }
    session.socket?.terminate();
    this.attach(connection, session);
    for (const payload of session.buffer) if (payload.s > d.seq) this.send(connection.socket, payload);
    this.deliver(session, 'RESUMED', null as never);
  }

  private requestMembers(session: Session, d: GatewayRequestGuildMembersData): void {
    if ((d.presences ?? false) && !(session.intents & GatewayIntentBits.GuildPresences)) return;
    const wholeList = !('user_ids' in d && d.user_ids !== undefined) && ('query' in d ? (d.query ?? '') : '') === '';
    if (wholeList && !(session.intents & GatewayIntentBits.GuildMembers)) return;
    for (const guildId of [d.guild_id].flat()) {
      const guild = this.state.guilds.get(guildId);
      if (!guild || shardOf(guildId, session.shard[1]) !== session.shard[0]) continue;
      for (const chunk of memberChunks(guild.id, [...guild.members.values()], d))
        this.deliver(session, 'GUILD_MEMBERS_CHUNK', chunk);
      this.memberRequests += 1;
    }
  }

  private applicationFlags(): ApplicationFlags {
    const allowed = this.options.privilegedIntents;
    let flags = 0;
    if (allowed & GatewayIntentBits.GuildMembers) flags |= ApplicationFlags.GatewayGuildMembers;
    if (allowed & GatewayIntentBits.GuildPresences) flags |= ApplicationFlags.GatewayPresence;
    if (allowed & GatewayIntentBits.MessageContent) flags |= ApplicationFlags.GatewayMessageContent;
    return flags;
  }

  private attach(connection: Connection, session: Session): void {
    clearTimeout(session.expiry);
    session.expiry = undefined;
    connection.session = session;
    session.socket = connection.socket;
  }

  private disconnected(connection: Connection, code: number): void {
    this.connections.delete(connection);
    const session = connection.session;
    if (!session || session.socket !== connection.socket) return;
    session.socket = undefined;
    if (code === 1000 || code === 1001) {
      this.sessions.delete(session.id);
      return;
    }
    session.expiry = setTimeout(() => this.sessions.delete(session.id), this.options.resumeWindowMs);
    session.expiry.unref();
  }

  private fanOut(guildId: string, t: DispatchName, d: unknown): void {
    for (const session of this.sessions.values()) {
      if (shardOf(guildId, session.shard[1]) !== session.shard[0] || !receives(session.intents, t)) continue;
      if (t === 'GUILD_AUDIT_LOG_ENTRY_CREATE' && !this.seesAuditLog(guildId)) continue;
      const data =
        (t === 'MESSAGE_CREATE' || t === 'MESSAGE_UPDATE') && !(session.intents & GatewayIntentBits.MessageContent)
          ? withoutContent(d as object, this.state.botUser.id)
          : d;
      this.deliver(session, t, data as DispatchData<typeof t>);
    }
  }

  /** GUILD_AUDIT_LOG_ENTRY_CREATE goes only to bots with VIEW_AUDIT_LOG in the guild. */
  private seesAuditLog(guildId: string): boolean {
    const guild = this.state.guilds.get(guildId);
    if (!guild) return false;
    const view = PermissionFlagsBits.ViewAuditLog;
    return (this.state.permissions(guild, this.state.botUser.id) & view) === view;
  }

  /** Numbers a dispatch with the session's next sequence, keeps it for replay, and sends it when connected. */
  private deliver<E extends DispatchName>(session: Session, t: E, d: DispatchData<E>): void {
    session.seq += 1;
    const payload = { t, s: session.seq, op: GatewayOpcodes.Dispatch, d } as GatewayDispatchPayload;
    session.buffer.push(payload);
    if (session.buffer.length > this.options.replayBufferSize) session.buffer.shift();
    if (session.socket) this.send(session.socket, payload);
  }

  private send(socket: WebSocket, payload: GatewayReceivePayload): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(payload));
  }
}
