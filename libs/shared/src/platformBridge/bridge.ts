import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { GatewayDispatchEvents, type GatewayDispatchPayload } from 'discord-api-types/v10';
import { EventBus } from '../bus/eventBus';
import type { Logger } from '../logger';
import { BRIDGE_INTENTS, dispatchSubject } from './intents';
import { OrderedPublisher } from './orderedPublisher';

/** Options of `startBridge`. */
export interface BridgeOptions {
  /** The bot token (without the `Bot ` prefix). */
  token: string;
  /** Gateway intents bit field; default `BRIDGE_INTENTS`. */
  intents?: number;
  /** NATS server URL(s), comma-separated. */
  natsUrl: string;
  /** NATS namespace prefix of subjects and streams (`NATS_NAMESPACE`); default none. */
  namespace?: string;
  logger: Logger;
  /** The platform's REST API root without version, asked for the gateway URL; default `https://discord.com/api`. */
  restUrl?: string;
  /** Shards to run; default the platform's recommendation from `GET /gateway/bot`. */
  shardCount?: number | null;
}

/** A running bridge. */
export interface Bridge {
  /** Dispatches handed to JetStream so far. */
  published(): number;
  /** Closes the gateway connections, publishes what is still queued (at most 5 s), then closes NATS. */
  stop(): Promise<void>;
}

/**
 * The de-duplication id of a dispatch: `<shard>:<session id>:<sequence>`. A RESUME keeps the session and replays
 * missed events with their original sequence numbers, so a replayed event gets the id it had the first time and
 * JetStream (10-minute duplicate window) stores it once.
 */
export function dispatchMsgId(shardId: number, sessionId: string, sequence: number): string {
  return `${shardId}:${sessionId}:${sequence}`;
}

/**
 * Connects to the platform's real-time gateway with @discordjs/ws and publishes every dispatch (READY, RESUMED,
 * INTERACTION_CREATE and all others the intents allow), unchanged as the `{t, s, op, d}` gateway payload, to the
 * JetStream stream PLATFORM on `platform.dispatch.<t>` with `Nats-Msg-Id` from `dispatchMsgId`. Reconnecting and
 * resuming are the library's (it resumes on abnormal closes and RECONNECT, identifies again on an invalid session).
 * Dispatches are published in arrival order; while NATS is unreachable they queue in memory and are retried.
 * Resolves once every shard is READY; rejects when the gateway URL cannot be fetched or NATS cannot be reached.
 */
export async function startBridge(opts: BridgeOptions): Promise<Bridge> {
  const logger = opts.logger;
  const bus = await EventBus.connect({ url: opts.natsUrl, name: 'platform-bridge', namespace: opts.namespace, logger });
  const publisher = new OrderedPublisher(bus, logger);
  const rest = new REST({ version: '10', api: opts.restUrl ?? 'https://discord.com/api' }).setToken(opts.token);
  const manager = new WebSocketManager({
    token: opts.token,
    intents: opts.intents ?? BRIDGE_INTENTS,
    rest,
    shardCount: opts.shardCount ?? null,
  });
  const sessions = new Map<number, string>();

  manager.on(WebSocketShardEvents.Dispatch, (payload: GatewayDispatchPayload, shardId: number) => {
    if (payload.t === GatewayDispatchEvents.Ready) sessions.set(shardId, payload.d.session_id);
    const session = sessions.get(shardId) ?? 'nosession';
    publisher.push(dispatchSubject(payload.t), payload, dispatchMsgId(shardId, session, payload.s));
  });
  manager.on(WebSocketShardEvents.Ready, (data, shardId) =>
    logger.info({ shardId, sessionId: data.session_id, guilds: data.guilds.length }, 'gateway shard ready'),
  );
  manager.on(WebSocketShardEvents.Resumed, (shardId) => logger.info({ shardId }, 'gateway shard resumed'));
  manager.on(WebSocketShardEvents.Closed, (code, shardId) => logger.warn({ shardId, code }, 'gateway shard closed'));
  manager.on(WebSocketShardEvents.Error, (err, shardId) => logger.error({ err, shardId }, 'gateway shard error'));
  manager.on(WebSocketShardEvents.Debug, (message, shardId) => logger.debug({ shardId }, message));

  try {
    await manager.connect();
  } catch (err) {
    await Promise.resolve(manager.destroy()).catch(() => undefined);
    await bus.close();
    throw err;
  }

  let stopping: Promise<void> | null = null;
  return {
    published: () => publisher.publishedCount,
    stop() {
      stopping ??= (async () => {
        await manager.destroy();
        await publisher.stop();
        await bus.close();
      })();
      return stopping;
    },
  };
}
