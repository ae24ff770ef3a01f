import { CAPS, createLogger, EventBus, type RunningService, type ServiceEvent, startService } from '@guildhall/shared';
import {
  deleteNamespace,
  type FakePlatform,
  identityHeaders,
  sampleGuild,
  startFakePlatform,
  stopTestMongo,
  testNatsUrl,
  testServiceEnv,
  userIdentity,
} from '@guildhall/shared/testing';
import { definition } from '../src/service';

/** Test kit of the moderation suites: fake platform + sample guild, the service, a peer bus and the events. */
export interface Harness {
  fake: FakePlatform;
  seed: ReturnType<typeof sampleGuild>;
  env: Record<string, string>;
  service: RunningService;
  /** A second bus on the test namespace, as the bridge / logs service would use. */
  peer: EventBus;
  /** Every moderation event received so far, in order. */
  events: ServiceEvent[];
  call(method: string, path: string, opts?: CallOptions): Promise<{ status: number; body: any }>;
  waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs?: number): Promise<T>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  /** Caller user id (default: the sample guild's moderator). */
  as?: string;
  name?: string;
  caps?: string[];
  /** Guild of the identity token (default: the sample guild). */
  guild?: string;
  headers?: Record<string, string>;
}

/** Starts everything a moderation test needs; `extraEnv` overrides the service environment. */
export async function startHarness(extraEnv: Record<string, string> = {}): Promise<Harness> {
  const fake = await startFakePlatform();
  const seed = sampleGuild();
  fake.seedGuild(seed);
  const env = await testServiceEnv('moderation', {
    PLATFORM_API_URL: fake.url,
    EXPIRY_POLL_MS: '100',
    PEER_TIMEOUT_MS: '500',
    ...extraEnv,
  });
  const service = await startService(definition, env);
  const peer = await EventBus.connect({
    url: testNatsUrl(),
    name: 'moderation-test-peer',
    namespace: env.NATS_NAMESPACE,
    logger: createLogger('moderation-test', 'silent'),
  });
  const events: ServiceEvent[] = [];
  await peer.consume<ServiceEvent>(
    { stream: 'EVENTS', durable: 'test-moderation-events', filterSubjects: ['events.moderation.>'] },
    async (msg) => {
      if (!events.some((e) => e.id === msg.data.id)) events.push(msg.data);
    },
  );
  const h: Harness = {
    fake,
    seed,
    env,
    service,
    peer,
    events,
    async call(method, path, opts = {}) {
      const as = opts.as ?? seed.ids.moderator;
      const identity = userIdentity(
        as,
        opts.guild ?? seed.id,
        opts.caps ?? [...CAPS],
        opts.name ?? `user${as.slice(-4)}`,
      );
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
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async waitFor(probe, what, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (value !== undefined && value !== null && value !== false) return value as never;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
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
