import type { FakePlatform } from '@guildhall/platform-simulator';
import type { EventBus, RunningService, ServiceEvent } from '@guildhall/shared';
import {
  type AppleChain,
  identityHeaders,
  type JwksServer,
  makeAppleChain,
  startJwksServer,
  startServiceHarness,
  userIdentity,
} from '@guildhall/testkit';
import { definition } from '../src/service';

export const STRIPE_SECRET = 'whsec_test_guildhall_billing_0123456789';
export const APPLE_BUNDLE = 'gg.guildhall.app';
export const GOOGLE_AUDIENCE = 'https://billing.example.test/api/webhooks/android-store';
export const GOOGLE_ACCOUNT = 'play-rtdn@guildhall-test.iam.gserviceaccount.com';
export const GOOGLE_PACKAGE = 'gg.guildhall.app';
export const STAFF = {
  kind: 'staff' as const,
  sub: '0d6b8f5e-2c1a-4e7b-9f3d-8a5c6b7d9e10',
  name: 'Ada Staff',
  username: 'ada',
  flag: 'admin',
};

/** A running billing service with every provider configured, a second bus for events/RPC, and teardown. */
export interface Harness {
  svc: RunningService;
  bus: EventBus;
  apple: AppleChain;
  jwks: JwksServer;
  events: ServiceEvent<'billing', 'entitlement.changed'>[];
  fake: FakePlatform;
  call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response>;
  user(userId: string, guild: string, caps?: string[]): Promise<Record<string, string>>;
  staff(): Promise<Record<string, string>>;
  /** `GET …/premium` of `guild` as `PREMIUM_READER` (asserts 200). */
  premium(guild: string): Promise<PremiumBody>;
  /** The staff list of stored notifications of `provider` (asserts 200). */
  notifications(provider: string): Promise<StoredNotification[]>;
  stop(): Promise<void>;
}

/** The user whose identity reads premium in the tests. */
export const PREMIUM_READER = '2090000000000000042';

/** What the tests read of `GET …/premium`. */
// biome-ignore lint/suspicious/noExplicitAny: the body is checked field by field by each test
export type PremiumBody = Record<string, any>;

/** What the tests read of one stored notification in the staff list. */
export interface StoredNotification {
  id: string;
  eventId: string;
  status: string;
  guild: string | null;
}

/** Starts billing in-process (see `startServiceHarness`) with every provider configured and its entitlement events. */
export async function startHarness(): Promise<Harness> {
  const apple = makeAppleChain('Harness');
  const jwks = await startJwksServer('harness-key');
  const h = await startServiceHarness(definition, {
    env: {
      STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
      APPLE_ROOT_CERTS: apple.rootDer.toString('base64'),
      APPLE_BUNDLE_ID: APPLE_BUNDLE,
      APPLE_APP_APPLE_ID: '1234567890',
      APPLE_ONLINE_CHECKS: '0',
      GOOGLE_CERTS_URL: jwks.pemUrl,
      GOOGLE_AUDIENCE,
      GOOGLE_SERVICE_ACCOUNT: GOOGLE_ACCOUNT,
      GOOGLE_PACKAGE_NAME: GOOGLE_PACKAGE,
      BILLING_POLL_MS: '200',
    },
  });
  const call: Harness['call'] = (method, path, headers, body) =>
    fetch(`${h.service.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const user: Harness['user'] = (userId, guild, caps = ['premium.manage']) =>
    identityHeaders(userIdentity(userId, guild, caps));
  const staff = () => identityHeaders(STAFF);
  return {
    svc: h.service,
    bus: h.peer,
    apple,
    jwks,
    events: h.events,
    fake: h.fake,
    call,
    user,
    staff,
    async premium(guild) {
      const res = await call('GET', `/api/v1/servers/${guild}/premium`, await user(PREMIUM_READER, guild));
      expect(res.status).toBe(200);
      return res.json();
    },
    async notifications(provider) {
      const res = await call('GET', `/api/staff/billing/notifications?provider=${provider}`, await staff());
      expect(res.status).toBe(200);
      return (await res.json()).notifications;
    },
    async stop() {
      await h.close();
      await jwks.close();
    },
  };
}
