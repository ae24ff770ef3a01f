import { REST } from '@discordjs/rest';
import { CloseCodes, WebSocketManager, WebSocketShardEvents, WebSocketShardStatus } from '@discordjs/ws';
import { BRIDGE_INTENTS, dispatchMsgId, EventBus, GuildChannelTracker, type Logger } from '@guildhall/shared';
import {
  GatewayDispatchEvents,
  type GatewayDispatchPayload,
  type GatewayGuildCreateDispatchData,
  GatewayIntentBits,
  GatewayOpcodes,
  type RESTGetAPIGatewayBotResult,
  Routes,
} from 'discord-api-types/v10';
import { Registry } from 'prom-client';
import { ChannelListFiller } from './channelLists';
import { assignShards, type ShardPlan } from './config';
import { bridgeMetrics } from './metrics';
import { OrderedPublisher } from './orderedPublisher';
import { SessionStore } from './sessionStore';

/** Options of `startBridge`. */
export interface BridgeOptions {
  /** The bot token (without the `Bot ` prefix). */
  token: string;
  /** Gateway intents bit field; default `BRIDGE_INTENTS`. */
  intents?: number;
  /** NATS server URL(s), comma-separated. */
  natsUrl: string;
  /** NATS namespace prefix of subjects, streams and the session bucket (`NATS_NAMESPACE`); default none. */
  namespace?: string;
  /** Copies of the streams and the session bucket in a JetStream cluster (`NATS_REPLICAS`); see `EventBus.connect`. */
  replicas?: number;
  logger: Logger;
  /** The platform's REST API root without version, asked for the gateway URL; default `https://discord.com/api`. */
  restUrl?: string;
  /** Total shards of the bot; default the platform's recommendation from `GET /gateway/bot`. */
  shardCount?: number | null;
  /** The shards this replica runs (see `assignShards`); default all. */
  shardPlan?: ShardPlan;
  /** Dispatches waiting for JetStream, at most, before the shards pause (default 10 000). */
  bufferMax?: number;
  /** Prometheus registry the bridge's metrics go to (default a private one). */
  metrics?: Registry;
}

/** A running bridge. */
export interface Bridge {
  /** Total shards of the bot. */
  readonly shardCount: number;
  /** The shards this replica runs. */
  readonly shardIds: readonly number[];
  /** Dispatches stored by JetStream so far. */
  published(): number;
  /** Dispatches received and waiting for JetStream. */
  backlog(): number;
  /** True while NATS is connected, the shards are not paused and every assigned shard is READY. */
  ready(): Promise<boolean>;
  /**
   * Closes the gateway connections with a resumable close code (the platform keeps the sessions), publishes what is
   * still queued (at most 5 s), persists the sessions' resume points, then closes NATS. A bridge started later
   * RESUMEs and the platform replays whatever was not stored.
   */
  stop(): Promise<void>;
}

/** What the publisher hands back once a dispatch is stored. */
interface DispatchTag {
  shardId: number;
  sessionId: string;
  seq: number;
  t: string;
}

/**
 * Connects the assigned shards to the platform's real-time gateway with @discordjs/ws and publishes every dispatch
 * (READY, RESUMED, INTERACTION_CREATE and all others the intents allow), unchanged as the `{t, s, op, d}` gateway
 * payload, to the JetStream stream PLATFORM on `dispatchSubject(t, d)` (`platform.dispatch.<partition>.<group>.<t>`) with
 * `Nats-Msg-Id` from `dispatchMsgId`, in arrival order. A message dispatch in a guild channel that is not a thread and
 * that this process learnt from its shards' GUILD_CREATE / CHANNEL_* dispatches (`GuildChannelTracker`, one for all
 * its shards: a guild is on one shard) goes to `platform.dispatch.<partition>.message.channel.<t>`; after a restart
 * that RESUMEs the sessions (no GUILD_CREATE) the first message of each guild asks the platform for the guild's
 * channel list (`ChannelListFiller`), and until it is answered those go to `platform.dispatch.<partition>.message.<t>`.
 *
 * - Sessions: persisted in NATS KV (`SessionStore`) through the library's session hooks, so a restarted bridge
 *   RESUMEs from the last stored dispatch. Reconnecting and resuming within a run are the library's.
 * - Backpressure: while NATS is unreachable dispatches wait in memory; once `bufferMax` wait, the shards are closed
 *   with a resumable code and later dispatches dropped (not acknowledged to the platform's sequence); when the backlog
 *   is down to half, the shards RESUME and the platform replays what was dropped. Memory stays bounded, nothing is lost.
 * - At each available GUILD_CREATE (with the GuildMembers intent) the shard requests every member of the guild
 *   (op 8, query '' limit 0); the GUILD_MEMBERS_CHUNK answers are published like any dispatch.
 *
 * Resolves once every assigned shard is READY (or resumed); rejects when the gateway information cannot be fetched
 * (a refused token), NATS cannot be reached or an explicit shard id is not below the shard count.
 */
export async function startBridge(opts: BridgeOptions): Promise<Bridge> {
  const logger = opts.logger;
  const intents = opts.intents ?? BRIDGE_INTENTS;
  const bufferMax = opts.bufferMax ?? 10_000;
  const bus = await EventBus.connect({
    url: opts.natsUrl,
    name: 'platform-bridge',
    namespace: opts.namespace,
    replicas: opts.replicas,
    logger,
  });
  let manager: WebSocketManager | undefined;
  let sessions: SessionStore | undefined;
  try {
    const rest = new REST({ version: '10', api: opts.restUrl ?? 'https://discord.com/api' }).setToken(opts.token);
    const shardCount = opts.shardCount ?? ((await rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult).shards;
    const shardIds = assignShards(opts.shardPlan ?? { kind: 'all' }, shardCount);
    const store = await SessionStore.open(bus, shardIds, logger);
    sessions = store;
    const ws = new WebSocketManager({
      token: opts.token,
      intents,
      rest,
      shardCount,
      shardIds,
      retrieveSessionInfo: (shardId) => store.retrieve(shardId),
      updateSessionInfo: (shardId, info) => store.update(shardId, info),
    });
    manager = ws;
    const statuses = async () => {
      const now = await ws.fetchStatus();
      return new Map(shardIds.map((id) => [id, now.get(id) ?? WebSocketShardStatus.Idle]));
    };
    let paused = false;
    /** An unpause is queued behind the pause's close: dispatches stay refused until the old connection is gone. */
    let unpausing = false;
    let stopping: Promise<void> | null = null;
    let transition: Promise<void> = Promise.resolve();
    const metrics = bridgeMetrics(opts.metrics ?? new Registry(), () => publisher.backlog, statuses);
    const publisher: OrderedPublisher<DispatchTag> = new OrderedPublisher<DispatchTag>(bus, logger, {
      onPublished(tag) {
        metrics.published.inc({ event: tag.t });
        store.published(tag.shardId, tag.sessionId, tag.seq);
        if (paused && !unpausing && !stopping && publisher.backlog <= bufferMax / 2) unpause();
      },
      onFailure: () => metrics.publishFailures.inc(),
    });

    const pause = () => {
      paused = true;
      metrics.pauses.inc();
      logger.warn({ backlog: publisher.backlog }, 'dispatch buffer full: pausing the gateway shards');
      store.hold();
      transition = transition
        .then(() => ws.destroy({ code: CloseCodes.Resuming, reason: 'backpressure' }))
        .catch((err) => logger.error({ err }, 'pausing the gateway shards failed'));
    };
    // `paused` stays set until the pause's close is done: a dispatch the closing connection still delivers after one
    // was refused must be refused too, or the resume point would skip the refused one.
    const unpause = () => {
      unpausing = true;
      logger.info({ backlog: publisher.backlog }, 'dispatch buffer drained: resuming the gateway shards');
      transition = transition.then(async () => {
        paused = false;
        unpausing = false;
        store.release();
        for (let delay = 1_000; !stopping && !paused; delay = Math.min(5_000, delay * 2)) {
          try {
            await ws.connect();
            return;
          } catch (err) {
            logger.error({ err, retryInMs: delay }, 'reconnecting the gateway shards failed');
            await new Promise((r) => setTimeout(r, delay));
          }
        }
      });
    };
    const requestMembers = (shardId: number, guild: GatewayGuildCreateDispatchData) => {
      if (!(intents & GatewayIntentBits.GuildMembers) || guild.unavailable) return;
      Promise.resolve(
        ws.send(shardId, { op: GatewayOpcodes.RequestGuildMembers, d: { guild_id: guild.id, query: '', limit: 0 } }),
      ).catch((err: unknown) => logger.warn({ err, shardId, guild: guild.id }, 'requesting guild members failed'));
    };

    const channels = new GuildChannelTracker();
    const channelLists = new ChannelListFiller(rest, channels, logger);
    ws.on(WebSocketShardEvents.Dispatch, (payload: GatewayDispatchPayload, shardId: number) => {
      if (paused || stopping) return; // not accepted: the RESUME after the pause (or restart) replays it
      const sessionId = store.sessionId(shardId) ?? 'nosession';
      const tag = { shardId, sessionId, seq: payload.s, t: payload.t };
      channelLists.onDispatch(payload.t, payload.d);
      const subject = channels.subject(payload.t, payload.d);
      publisher.push(subject, payload, dispatchMsgId(shardId, sessionId, payload.s), tag);
      store.accept(shardId, payload.s);
      if (payload.t === GatewayDispatchEvents.GuildCreate) requestMembers(shardId, payload.d);
      if (publisher.backlog >= bufferMax) pause();
    });
    ws.on(WebSocketShardEvents.Ready, (data, shardId) =>
      logger.info({ shardId, sessionId: data.session_id, guilds: data.guilds.length }, 'gateway shard ready'),
    );
    ws.on(WebSocketShardEvents.Resumed, (shardId) => {
      metrics.resumes.inc({ shard: String(shardId) });
      logger.info({ shardId }, 'gateway shard resumed');
    });
    ws.on(WebSocketShardEvents.Closed, (code, shardId) => {
      metrics.reconnects.inc({ shard: String(shardId) });
      logger.warn({ shardId, code }, 'gateway shard closed');
    });
    ws.on(WebSocketShardEvents.Error, (err, shardId) => logger.error({ err, shardId }, 'gateway shard error'));
    ws.on(WebSocketShardEvents.Debug, (message, shardId) => logger.debug({ shardId }, message));

    if (shardIds.length) await ws.connect();
    else logger.warn({ shardCount }, 'no shard assigned to this replica (more replicas than shards)');
    logger.info({ shardCount, shardIds }, 'bridge started');

    return {
      shardCount,
      shardIds,
      published: () => publisher.publishedCount,
      backlog: () => publisher.backlog,
      async ready() {
        if (stopping || paused || !bus.isConnected()) return false;
        return [...(await statuses()).values()].every((s) => s === WebSocketShardStatus.Ready);
      },
      stop() {
        stopping ??= (async () => {
          store.hold();
          await transition;
          await ws.destroy({ code: CloseCodes.Resuming, reason: 'bridge stopping' });
          await publisher.stop();
          await store.flush();
          await bus.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    sessions?.hold();
    await Promise.resolve(manager?.destroy({ code: CloseCodes.Resuming })).catch(() => undefined);
    await bus.close();
    throw err;
  }
}
