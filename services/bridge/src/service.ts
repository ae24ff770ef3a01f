import type { Server } from 'node:http';
import { createApp, createLogger, createMetricsRegistry, createPlatformApi, type Logger } from '@guildhall/shared';
import { type Bridge, startBridge } from './bridge';
import { type RunningRegistration, startCommandRegistration } from './commandRegistration';
import { loadBridgeConfig } from './config';

/** The bridge as a process: its HTTP server and the bridge starting behind it. */
export interface BridgeService {
  /** Base URL of the HTTP server (`/healthz`, `/readyz`, `/metrics`). */
  url: string;
  logger: Logger;
  /** Resolves once every assigned shard is READY; rejects when the bridge cannot start (see `startBridge`). */
  started: Promise<Bridge>;
  /** The application commands' registration, running beside the bridge (see `startCommandRegistration`). */
  commands: RunningRegistration;
  /** Stops the commands' registration and the bridge (see `Bridge.stop`), then the HTTP server. */
  stop(): Promise<void>;
}

/**
 * Boots the bridge from `env` (see `bridgeConfigShape`; throws `ConfigError` naming bad variables): the HTTP server
 * first, answering `GET /healthz` (process up), `GET /readyz` (200 once NATS is connected and every assigned shard is
 * READY and not paused, else 503) and `GET /metrics` (Prometheus: the `bridge_*` metrics plus process defaults), then
 * the gateway connection (`started`) and, beside it without holding it up, the registration of the application's
 * commands (`commands`: global, or in the guild `COMMANDS_GUILD_ID`).
 */
export async function startBridgeService(
  env: Record<string, string | undefined> = process.env,
): Promise<BridgeService> {
  const config = loadBridgeConfig(env);
  const logger = createLogger('bridge', config.LOG_LEVEL);
  const metrics = createMetricsRegistry('bridge');
  let bridge: Bridge | null = null;
  const app = createApp({
    name: 'bridge',
    logger,
    metrics,
    metricsToken: config.METRICS_TOKEN,
    trustProxy: config.TRUST_PROXY,
    isReady: () => bridge?.ready() ?? false,
    mount: () => undefined,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.PORT, config.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const port = (server.address() as { port: number }).port;
  logger.info({ port }, 'bridge listening');
  const commands = startCommandRegistration({
    api: createPlatformApi({ baseUrl: config.PLATFORM_API_URL, token: config.PLATFORM_BOT_TOKEN }),
    scope: config.COMMANDS_GUILD_ID ? { kind: 'guild', guildId: config.COMMANDS_GUILD_ID } : { kind: 'global' },
    logger,
    metrics,
  });
  const started = startBridge({
    token: config.PLATFORM_BOT_TOKEN,
    intents: config.PLATFORM_INTENTS,
    natsUrl: config.NATS_URL,
    namespace: config.NATS_NAMESPACE || undefined,
    replicas: config.NATS_REPLICAS,
    restUrl: config.PLATFORM_API_URL,
    shardCount: config.BRIDGE_SHARD_COUNT ?? null,
    shardPlan: config.shardPlan,
    bufferMax: config.BRIDGE_BUFFER_MAX,
    metrics,
    logger,
  }).then((b) => {
    bridge = b;
    return b;
  });
  let stopping: Promise<void> | null = null;
  return {
    url: `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`,
    logger,
    started,
    commands,
    stop() {
      stopping ??= (async () => {
        commands.stop();
        await started.then((b) => b.stop()).catch(() => undefined);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        logger.info('bridge stopped');
      })();
      return stopping;
    },
  };
}
