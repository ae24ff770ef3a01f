import type { FakePlatform, SeedGuild } from '@guildhall/platform-simulator';
import { type SampleGuildIds, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import type {
  AccessReply,
  AccessRequest,
  BaseConfig,
  EventService,
  EventType,
  HierarchyReply,
  HierarchyRequest,
  ServiceEvent,
  ServiceName,
} from '@guildhall/shared';
import {
  CAPS,
  createLogger,
  dispatchSubject,
  EventBus,
  eventConsumer,
  newSnowflake,
  RPC,
  type RunningService,
  type ServiceDefinition,
  type StructureReply,
  serviceEvents,
  startService,
} from '@guildhall/shared';
import type { z } from 'zod';
import { deleteNamespace, identityHeaders, stopTestMongo, testNatsUrl, testServiceEnv, userIdentity } from './env';
import { accessFromFake, hierarchyFromFake, structureFromFake } from './fakeStructure';
import { assertAllModelled } from './system';

/** A seeded sample guild: the seed plus the ids of everything in it (see `sampleGuild`). */
export type SampleGuild = SeedGuild & { ids: SampleGuildIds };

/** Members of the sample guild that can be a suite's default caller. */
export type SampleCaller = 'owner' | 'admin' | 'moderator' | 'support' | 'member';

/** Options of `startServiceHarness`. */
export interface ServiceHarnessOptions {
  /**
   * Service environment overrides (on top of `testServiceEnv` and `PLATFORM_API_URL` of the fake), or a function of
   * the fake giving them (e.g. `(fake) => ({ PLATFORM_CDN_URL: fake.cdnUrl })`).
   */
  env?: Record<string, string> | ((fake: FakePlatform) => Record<string, string>);
  /**
   * Answer community's `RPC.structure`, `RPC.access` and `RPC.hierarchy` from the fake platform's guild state
   * (`structureFromFake`, `accessFromFake`, `hierarchyFromFake`).
   */
  structure?: boolean;
  /** The guild seeded into the fake platform (default: a fresh `sampleGuild()`). */
  seed?: SampleGuild;
  /**
   * Publish every dispatch the fake platform emits (members' actions through `fake.actAsUser`, the service's own
   * REST calls) on the bus, in emission order, as the bridge does.
   */
  relayDispatches?: boolean;
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

/**
 * What a `call` answered: the status, the body (parsed JSON, else text, NDJSON included; undefined when empty) and
 * the headers.
 */
export interface CallResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  body: any;
  headers: Headers;
}

/** One service under test with the fake platform, a peer bus and the service's events (see `startServiceHarness`). */
export interface ServiceHarness<C extends BaseConfig = BaseConfig, S extends ServiceName = ServiceName> {
  fake: FakePlatform;
  seed: SampleGuild;
  /** The environment the service runs with (`restart` reuses it, so the same database and namespace). */
  env: Record<string, string>;
  /** The running service; replaced by `restart`. */
  service: RunningService<C, S>;
  /** A second bus on the test namespace, as the bridge and peer services use it (publish, request, reply). */
  peer: EventBus;
  /** Every event the service published (checked against its shared schema, typed), in arrival order, each id once. */
  events: ServiceEvent<S & EventService>[];
  /** Calls the service over HTTP with a signed identity token, exactly as the gateway does. */
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  /**
   * Publishes a platform dispatch `{t, s, op: 0, d}` on `dispatchSubject(t, d)` (`platform.dispatch.<partition>.<group>.<t>`) as the bridge does, with a fresh
   * message id (`s`: the harness's next sequence number unless given).
   */
  dispatch(t: string, d: unknown, s?: number): Promise<void>;
  /** Stops the service (a no-op when already stopped) and starts it again on the same environment. */
  restart(): Promise<void>;
  /**
   * Stops the service, the peer bus and the fake, deletes the test namespace and stops the embedded MongoDB, then fails
   * (rejects, naming the routes) when the fake platform answered any call 501 during the suite (`assertAllModelled`):
   * a service that depends on a route the simulator does not model proves nothing about the real platform.
   */
  close(): Promise<void>;
}

/**
 * Starts everything a service suite needs: the fake platform seeded with `options.seed` (default `sampleGuild()`),
 * the service itself (`startService` with `testServiceEnv(definition.name, {PLATFORM_API_URL, ...options.env})`),
 * a peer bus on its namespace (answering `RPC.structure`, `RPC.access` and `RPC.hierarchy` when `options.structure`) and a durable consumer capturing
 * every event of the service into `events`. Close it with `close()` in `afterAll`.
 */
export async function startServiceHarness<E extends z.ZodRawShape, S extends ServiceName>(
  definition: ServiceDefinition<E, S>,
  options: ServiceHarnessOptions = {},
): Promise<ServiceHarness<BaseConfig & z.infer<z.ZodObject<E>>, S>> {
  const name = definition.name;
  const fake = await startFakePlatform();
  const seed = options.seed ?? sampleGuild();
  fake.seedGuild(seed);
  const extra = typeof options.env === 'function' ? options.env(fake) : options.env;
  const env = await testServiceEnv(name, { PLATFORM_API_URL: fake.url, ...extra });
  const service = await startService(definition, env);
  const peer = await EventBus.connect({
    url: testNatsUrl(),
    name: `${name}-test-peer`,
    namespace: env.NATS_NAMESPACE,
    logger: createLogger(`${name}-test`, 'silent'),
  });
  if (options.structure) {
    peer.reply<{ guild: string }, StructureReply>(RPC.structure, async ({ guild }) => structureFromFake(fake, guild));
    peer.reply<AccessRequest, AccessReply>(RPC.access, async ({ guild, user }) => accessFromFake(fake, guild, user));
    peer.reply<HierarchyRequest, HierarchyReply>(RPC.hierarchy, async (req) => hierarchyFromFake(fake, req));
  }
  const events: ServiceEvent<S & EventService>[] = [];
  if (name in serviceEvents) {
    const service = name as S & EventService;
    const types = Object.keys(serviceEvents[service]) as EventType<S & EventService>[];
    await peer.consume(eventConsumer(`test-${name}-events`, { [service]: types }), async (msg) => {
      const event = msg.data as ServiceEvent<S & EventService>;
      if (!events.some((e) => e.id === event.id)) events.push(event);
    });
  }
  const defaultCaller = seed.ids[options.caller?.as ?? 'owner'];
  let sequence = 0;
  let relayed: Promise<void> = Promise.resolve();
  const stopRelay = options.relayDispatches
    ? fake.onDispatch((_guild, t, d) => {
        relayed = relayed.then(() => h.dispatch(t, d));
      })
    : () => {};
  const h: ServiceHarness<BaseConfig & z.infer<z.ZodObject<E>>, S> = {
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
      // NDJSON (a stream of JSON lines) stays text; the test splits it.
      const json =
        /json/.test(res.headers.get('content-type') ?? '') && !/ndjson/.test(res.headers.get('content-type') ?? '');
      return { status: res.status, body: text ? (json ? JSON.parse(text) : text) : undefined, headers: res.headers };
    },
    async dispatch(t, d, s) {
      await peer.publish(dispatchSubject(t, d), { t, s: s ?? ++sequence, op: 0, d }, newSnowflake());
    },
    async restart() {
      await h.service.stop();
      h.service = await startService(definition, env);
    },
    async close() {
      stopRelay();
      await relayed;
      await h.service.stop();
      await peer.close();
      await fake.close();
      await deleteNamespace(env.NATS_NAMESPACE);
      await stopTestMongo();
      assertAllModelled(fake);
    },
  };
  return h;
}

/** The captured `events` of type `type`, typed by it (e.g. `eventsOfType(h.events, 'case.created')`). */
export function eventsOfType<E extends { type: string }, T extends E['type']>(
  events: readonly E[],
  type: T,
): Array<Extract<E, { type: T }>> {
  return events.filter((e): e is Extract<E, { type: T }> => e.type === type);
}
