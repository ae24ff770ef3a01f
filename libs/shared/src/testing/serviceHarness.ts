import type { z } from 'zod';
import { EventBus } from '../bus/eventBus';
import type { ServiceEvent } from '../bus/outbox';
import type { BaseConfig } from '../config';
import { CAPS } from '../contract/caps';
import { RPC, type StructureReply } from '../contract/rpc';
import { createLogger } from '../logger';
import { type RunningService, type ServiceDefinition, startService } from '../service';
import { deleteNamespace, identityHeaders, stopTestMongo, testNatsUrl, testServiceEnv, userIdentity } from './env';
import { type SampleGuildIds, sampleGuild } from './fakePlatform/seed';
import { startFakePlatform } from './fakePlatform/server';
import { snowflake } from './fakePlatform/snowflake';
import type { FakePlatform, SeedGuild } from './fakePlatform/types';
import { structureFromFake } from './fakeStructure';

/** A seeded sample guild: the seed plus the ids of everything in it (see `sampleGuild`). */
export type SampleGuild = SeedGuild & { ids: SampleGuildIds };

/** Members of the sample guild that can be a suite's default caller. */
export type SampleCaller = 'owner' | 'admin' | 'moderator' | 'support' | 'member';

/** Options of `startServiceHarness`. */
export interface ServiceHarnessOptions {
  /** Service environment overrides (on top of `testServiceEnv` and `PLATFORM_API_URL` of the fake). */
  env?: Record<string, string>;
  /** Subjects of the EVENTS stream captured into `events` (default `events.<service>.>`; `[]`: none). */
  eventsFilter?: string[];
  /** Answer community's `RPC.structure` from the fake platform's guild state (`structureFromFake`). */
  structure?: boolean;
  /** The guild seeded into the fake platform (default: a fresh `sampleGuild()`). */
  seed?: SampleGuild;
  /** Default caller of `call`: a sample guild member (default `owner`) and a display name (default `user<last 4>`). */
  caller?: { as?: SampleCaller; name?: string };
}

/** Options of one `ServiceHarness.call`. */
export interface CallOptions {
  /** JSON request body (sent with `content-type: application/json`). */
  body?: unknown;
  /** Caller user id (default: the suite's default caller). */
  as?: string;
  /** Caller display name (default: the suite's default name, else `user<last 4 digits of the id>`). */
  name?: string;
  /** Caps of the identity token (default: all). */
  caps?: string[];
  /** Guild of the identity token (default: the seeded guild). */
  guild?: string;
  /** Extra request headers; they win over the identity and content-type headers. */
  headers?: Record<string, string>;
}

/** What a `call` answered: the status, the body (parsed JSON, else text; undefined when empty) and the headers. */
export interface CallResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  body: any;
  headers: Headers;
}

/** One service under test with the fake platform, a peer bus and the service's events (see `startServiceHarness`). */
export interface ServiceHarness<C extends BaseConfig = BaseConfig> {
  fake: FakePlatform;
  seed: SampleGuild;
  /** The environment the service runs with (`restart` reuses it, so the same database and namespace). */
  env: Record<string, string>;
  /** The running service; replaced by `restart`. */
  service: RunningService<C>;
  /** A second bus on the test namespace, as the bridge and peer services use it (publish, request, reply). */
  peer: EventBus;
  /** Every captured service event, in arrival order, each id once. */
  events: ServiceEvent[];
  /** Calls the service over HTTP with a signed identity token, exactly as the gateway does. */
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  /**
   * Publishes a platform dispatch `{t, s, op: 0, d}` on `platform.dispatch.<t>` as the bridge does, with a fresh
   * message id (`s`: the harness's next sequence number unless given).
   */
  dispatch(t: string, d: unknown, s?: number): Promise<void>;
  /** Stops the service (a no-op when already stopped) and starts it again on the same environment. */
  restart(): Promise<void>;
  /** Stops the service, the peer bus and the fake, deletes the test namespace and stops the embedded MongoDB. */
  close(): Promise<void>;
}

/**
 * Starts everything a service suite needs: the fake platform seeded with `options.seed` (default `sampleGuild()`),
 * the service itself (`startService` with `testServiceEnv(definition.name, {PLATFORM_API_URL, ...options.env})`),
 * a peer bus on its namespace (answering `RPC.structure` when `options.structure`) and a durable consumer capturing
 * its events into `events`. Close it with `close()` in `afterAll`.
 */
export async function startServiceHarness<E extends z.ZodRawShape>(
  definition: ServiceDefinition<E>,
  options: ServiceHarnessOptions = {},
): Promise<ServiceHarness<BaseConfig & z.infer<z.ZodObject<E>>>> {
  const name = definition.name;
  const fake = await startFakePlatform();
  const seed = options.seed ?? sampleGuild();
  fake.seedGuild(seed);
  const env = await testServiceEnv(name, { PLATFORM_API_URL: fake.url, ...options.env });
  const service = await startService(definition, env);
  const peer = await EventBus.connect({
    url: testNatsUrl(),
    name: `${name}-test-peer`,
    namespace: env.NATS_NAMESPACE,
    logger: createLogger(`${name}-test`, 'silent'),
  });
  if (options.structure) {
    peer.reply<{ guild: string }, StructureReply>(RPC.structure, async ({ guild }) => structureFromFake(fake, guild));
  }
  const events: ServiceEvent[] = [];
  const eventsFilter = options.eventsFilter ?? [`events.${name}.>`];
  if (eventsFilter.length > 0) {
    await peer.consume<ServiceEvent>(
      { stream: 'EVENTS', durable: `test-${name}-events`, filterSubjects: eventsFilter },
      async (msg) => {
        if (!events.some((e) => e.id === msg.data.id)) events.push(msg.data);
      },
    );
  }
  const defaultCaller = seed.ids[options.caller?.as ?? 'owner'];
  let sequence = 0;
  const h: ServiceHarness<BaseConfig & z.infer<z.ZodObject<E>>> = {
    fake,
    seed,
    env,
    service,
    peer,
    events,
    async call(method, path, opts = {}) {
      const as = opts.as ?? defaultCaller;
      const caller = opts.name ?? options.caller?.name ?? `user${as.slice(-4)}`;
      const identity = userIdentity(as, opts.guild ?? seed.id, opts.caps ?? [...CAPS], caller);
      const res = await fetch(`${h.service.url}${path}`, {
        method,
        headers: {
          ...(await identityHeaders(identity)),
          ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      const text = await res.text();
      const json = /json/.test(res.headers.get('content-type') ?? '');
      return { status: res.status, body: text ? (json ? JSON.parse(text) : text) : undefined, headers: res.headers };
    },
    async dispatch(t, d, s) {
      await peer.publish(`platform.dispatch.${t}`, { t, s: s ?? ++sequence, op: 0, d }, snowflake());
    },
    async restart() {
      await h.service.stop();
      h.service = await startService(definition, env);
    },
    async close() {
      await h.service.stop();
      await peer.close();
      await fake.close();
      await deleteNamespace(env.NATS_NAMESPACE);
      await stopTestMongo();
    },
  };
  return h;
}
