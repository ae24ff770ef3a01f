import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import { BotUser } from './botUser';
import { EventBus } from './bus/eventBus';
import { Outbox } from './bus/outbox';
import { type BaseConfig, loadConfig } from './config';
import type { ServiceName } from './contract/route';
import { createApp, createMetricsRegistry } from './http/app';
import { type ExportSource, mountInternalExport } from './http/export';
import { mountRoutes, type RouteBinding } from './http/routes';
import { createLogger, type Logger } from './logger';
import { connectMongo, disconnectMongo, mongoReady } from './mongo';
import { createPlatformApi, type PlatformApi } from './platform';

/** What a service's code gets at boot; `S` is the service, which types the events its outbox takes. */
export interface ServiceContext<C extends BaseConfig = BaseConfig, S extends ServiceName = ServiceName> {
  name: S;
  config: C;
  logger: Logger;
  bus: EventBus;
  /** Stores then publishes the service's events (see `Outbox`). */
  outbox: Outbox<S>;
  /** The platform's typed REST API (see `PlatformApi`). */
  platform: PlatformApi;
  /** The bot's own user id, resolved with retries (see `BotUser`); started at boot when the definition sets `botUser`. */
  botUser: BotUser;
  metrics: Registry;
}

/** Something started at boot that must stop at shutdown (consumers, pollers, responders). */
export interface Stoppable {
  stop(): Promise<void>;
}

/** A service: its name, extra config variables, routes, and what else it starts (consumers, pollers, RPC). */
export interface ServiceDefinition<E extends z.ZodRawShape = z.ZodRawShape, S extends ServiceName = ServiceName> {
  name: S;
  env?: E;
  /**
   * The service reads the bot's own user id (its audit entries, its threads): `ctx.botUser` is resolved at boot,
   * with retries until the platform answers, and `/readyz` answers 503 until it is known.
   */
  botUser?: boolean;
  routes?: (ctx: ServiceContext<BaseConfig & z.infer<z.ZodObject<E>>, S>) => RouteBinding[];
  /** Mounts extra middleware/handlers before the routes (the gateway's proxy). */
  mount?: (app: Express, ctx: ServiceContext<BaseConfig & z.infer<z.ZodObject<E>>, S>) => void;
  start?: (ctx: ServiceContext<BaseConfig & z.infer<z.ZodObject<E>>, S>) => Promise<Stoppable[]>;
  /** The service's part of a guild export, served at INTERNAL_EXPORT_PATH (see `mountInternalExport`). */
  exporter?: (ctx: ServiceContext<BaseConfig & z.infer<z.ZodObject<E>>, S>) => ExportSource;
}

/** A started service. */
export interface RunningService<C extends BaseConfig = BaseConfig, S extends ServiceName = ServiceName> {
  url: string;
  port: number;
  ctx: ServiceContext<C, S>;
  app: Express;
  stop(): Promise<void>;
}

/**
 * Boots a service: config (throws `ConfigError` naming bad variables) -> logger -> MongoDB (its own database) ->
 * NATS (streams ensured) -> outbox -> the bot user's resolving (`def.botUser`, in the background) -> `start`
 * (consumers, pollers) -> HTTP server. `/readyz` is 200 while MongoDB and NATS are connected and, for a `botUser`
 * service, once the bot's user id is known. `stop` drains in reverse:
 * stop accepting and finish in-flight requests, stop consumers and pollers (together), flush the outbox, close NATS and
 * MongoDB.
 */
export async function startService<E extends z.ZodRawShape, S extends ServiceName>(
  def: ServiceDefinition<E, S>,
  env: Record<string, string | undefined> = process.env,
): Promise<RunningService<BaseConfig & z.infer<z.ZodObject<E>>, S>> {
  const config = loadConfig(def.env ?? ({} as E), env) as BaseConfig & z.infer<z.ZodObject<E>>;
  const logger = createLogger(def.name, config.LOG_LEVEL);
  await connectMongo(config.MONGO_URL, config.MONGO_DB, logger, config.MONGO_TIMEOUT_MS, config.MONGO_WRITE_TIMEOUT_MS);
  const bus = await EventBus.connect({
    url: config.NATS_URL,
    name: def.name,
    namespace: config.NATS_NAMESPACE,
    replicas: config.NATS_REPLICAS,
    logger,
  });
  const outbox = new Outbox(bus, def.name, logger);
  const platform = createPlatformApi({
    baseUrl: config.PLATFORM_API_URL,
    token: config.PLATFORM_BOT_TOKEN,
    cdnUrl: config.PLATFORM_CDN_URL,
  });
  const metrics = createMetricsRegistry(def.name);
  metrics.registerMetric(bus.deadLetters);
  const ctx: ServiceContext<BaseConfig & z.infer<z.ZodObject<E>>, S> = {
    name: def.name,
    config,
    logger,
    bus,
    outbox,
    platform,
    botUser: new BotUser(platform, logger),
    metrics,
  };
  if (def.botUser) ctx.botUser.start();
  const started = def.start ? await def.start(ctx) : [];
  let stopping = false;
  const app = createApp({
    name: def.name,
    logger,
    metrics,
    metricsToken: config.METRICS_TOKEN,
    trustProxy: config.TRUST_PROXY,
    isReady: () => !stopping && mongoReady() && bus.isConnected() && (!def.botUser || ctx.botUser.known !== null),
    mount: (express) => {
      def.mount?.(express, ctx);
      if (def.exporter) mountInternalExport(express, def.name, config.IDENTITY_SECRET, def.exporter(ctx));
      mountRoutes(express, def.routes?.(ctx) ?? [], {
        identitySecret: config.IDENTITY_SECRET,
        bodyLimit: config.BODY_LIMIT,
        validateResponses: config.VALIDATE_RESPONSES,
        logger,
      });
    },
  });
  const server = await listen(app, config.PORT, config.HOST);
  const port = (server.address() as { port: number }).port;
  logger.info({ port }, `${def.name} listening`);
  return {
    url: `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`,
    port,
    ctx,
    app,
    async stop() {
      if (stopping) return;
      stopping = true;
      ctx.botUser.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      // Each drains on its own (a consumer waits for its pull in progress, up to 2 s): stopped together.
      await Promise.all(started.map((s) => s.stop().catch((err) => logger.error({ err }, 'stop failed'))));
      await outbox.stop();
      await bus.close();
      await disconnectMongo();
      logger.info(`${def.name} stopped`);
    },
  };
}

function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => (err ? reject(err) : resolve(server)));
    server.keepAliveTimeout = 65_000;
  });
}

/** Entry point of a service's `main.ts`: starts it and stops it cleanly on SIGTERM/SIGINT; exits 1 if boot fails. */
export function runMain<E extends z.ZodRawShape, S extends ServiceName>(def: ServiceDefinition<E, S>): void {
  startService(def).then(
    (running) => {
      const shutdown = (signal: string) => {
        running.ctx.logger.info({ signal }, 'shutting down');
        const force = setTimeout(() => process.exit(1), 15_000);
        force.unref();
        running.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    },
    (err) => {
      console.error(`${def.name} failed to start: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
