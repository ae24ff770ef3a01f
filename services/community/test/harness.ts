import { CAPS, createLogger, EventBus, type RunningService, startService } from '@guildhall/shared';
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
import type { CommunityConfig } from '../src/config';
import { definition } from '../src/service';

/** One started community service with the fake platform, a seeded sample guild and a dispatch publisher. */
export interface Harness {
  fake: FakePlatform;
  service: RunningService<CommunityConfig>;
  seed: ReturnType<typeof sampleGuild>;
  /** A second bus on the service's namespace, publishing as the bridge would. */
  bridge: EventBus;
  namespace: string;
  /** Calls the service over HTTP as `user` (default: the owner) of `guild` (default: the sample guild) holding `caps` (default: all). */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; caps?: string[]; user?: string; guild?: string },
  ): Promise<Response>;
  /** Publishes a platform dispatch `{t, s, op, d}` on `platform.dispatch.<t>`. */
  dispatch(t: string, d: unknown): Promise<void>;
  stop(): Promise<void>;
}

let sequence = 0;

/** Starts the fake platform, seeds `sampleGuild(overrides)`, and starts community against them. */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const fake = await startFakePlatform();
  const seed = sampleGuild();
  fake.seedGuild(seed);
  const serviceEnv = await testServiceEnv('community', { PLATFORM_API_URL: fake.url, ...env });
  const service = await startService(definition, serviceEnv);
  const namespace = serviceEnv.NATS_NAMESPACE as string;
  const bridge = await EventBus.connect({
    url: testNatsUrl(),
    name: 'test-bridge',
    namespace,
    logger: createLogger('test-bridge', 'silent'),
  });
  return {
    fake,
    service,
    seed,
    bridge,
    namespace,
    async call(method, path, opts = {}) {
      const user = opts.user ?? seed.ids.owner;
      const headers = await identityHeaders(
        userIdentity(user, opts.guild ?? seed.id, opts.caps ?? [...CAPS], 'Tester'),
      );
      return fetch(`${service.url}${path}`, {
        method,
        headers: { ...headers, ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
      });
    },
    async dispatch(t, d) {
      sequence++;
      await bridge.publish(`platform.dispatch.${t}`, { t, s: sequence, op: 0, d }, `test-${namespace}-${sequence}`);
    },
    async stop() {
      await service.stop();
      await bridge.close();
      await fake.close();
      await deleteNamespace(namespace);
      await stopTestMongo();
    },
  };
}
