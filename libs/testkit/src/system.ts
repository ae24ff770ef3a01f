import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DayClock,
  type DrivenDayFacts,
  type FakePlatform,
  FIXTURE_IDS,
  type GuildDayDriver,
  guildDayDriver,
  recentDayStart,
  type SeedUser,
  sampleGuild,
  startFakePlatform,
} from '@guildhall/platform-simulator';
import { deleteNamespace, testNamespace, testNatsUrl } from './env';
import { freePortBase } from './ports';
import { type AppleChain, type JwksServer, makeAppleChain, startJwksServer } from './providers';

/** The repository root (this file is libs/testkit/{src,dist}/system). */
const ROOT = path.resolve(__dirname, '../../..');
// biome-ignore lint/suspicious/noExplicitAny: scripts/stack.js is plain JavaScript
const { startStack } = require(path.join(ROOT, 'scripts/stack.js')) as { startStack: (o: object) => Promise<any> };
export const DASHBOARD_ORIGIN = 'http://dashboard.guildhall.test';
export const STRIPE_SECRET = 'whsec_e2e_guildhall_0123456789abcdef';
export const APPLE_BUNDLE = 'gg.guildhall.app';
export const GOOGLE_AUDIENCE = 'https://guildhall.test/api/webhooks/android-store';
export const GOOGLE_ACCOUNT = 'play-rtdn@guildhall-e2e.iam.gserviceaccount.com';
export const GOOGLE_PACKAGE = 'gg.guildhall.app';
export const STAFF_ISSUER = 'https://id.guildhall.test';
export const STAFF_AUDIENCE = 'guildhall-staff-api';
/** The staff user every staff token names (the `by` of promo batches). */
export const STAFF_USER = {
  sub: '7d9f2c1e-4b7a-4c11-9a51-3f0b6f2d8e10',
  username: 'ops.alice',
  name: 'Alice Ops',
  flag: 'admin',
};

/** Users of the fixture guild signed in through OAuth2, and an admin of another guild. */
export const USERS = {
  owner: FIXTURE_IDS.owner,
  admin: FIXTURE_IDS.admin,
  moderator: FIXTURE_IDS.moderator,
} as const;

/**
 * The whole system as separate processes (the five services, the gateway and the platform bridge connected to the
 * fake platform's gateway), with the fake platform, identity providers and provider keys.
 */
export interface System {
  gatewayUrl: string;
  namespace: string;
  guild: string;
  /**
   * Ids of what happened during the fixture guild's day (joins, bans, the forum post, created roles...), complete once
   * the day was played: at start-up with `day: 'after'`, after `dayPlayer.play()` with `day: 'play'`.
   */
  readonly day: DrivenDayFacts;
  /** Start of the fixture guild's day (it ends when the system started). */
  dayStart: Date;
  /** A second guild whose owner is `outsider`. */
  otherGuild: { id: string; owner: string };
  fake: FakePlatform;
  staff: JwksServer;
  google: JwksServer;
  apple: AppleChain;
  // biome-ignore lint/suspicious/noExplicitAny: the launcher's handle (scripts/stack.js)
  stack: any;
  /**
   * Makes `userId` (a user seeded by `startSystem`) the account the fake platform's authorize page consents as when a
   * browser goes through the login (no test-only `user` parameter), as if that account were signed in at the platform.
   */
  platformAccount(userId: string): void;
  /** Signs in `userId` through the gateway's OAuth2 login against the fake platform; returns the session id. */
  login(userId: string): Promise<string>;
  /** A staff bearer token (claims override the defaults). */
  staffToken(
    claims?: Record<string, unknown>,
    opts?: { audience?: string; issuer?: string; expiresIn?: string },
  ): Promise<string>;
  /**
   * The fixture guild's day driven through the fake platform (`guildDayDriver`: members, staff and the bot act through
   * its routes at each action's time on the platform's clock, so the bridge receives what the platform emits for
   * them), ending when the system started, so its messages are in the 7-day window. With `day: 'play'`, `play(count)`
   * performs the next part of it through the running system (the first call makes the bot join the guild as it is at
   * the day's start); the platform's clock is back on the wall clock once the whole day was played. With the default
   * `day: 'after'` it was played at start-up, before the bridge connected (`play` resolves 0).
   */
  dayPlayer: GuildDayDriver;
  /** The NATS server the system uses. */
  natsUrl: string;
  /**
   * Stops the processes, the fake platform and the providers and deletes the namespace, then fails (rejects, naming
   * the routes) when the fake platform answered any call 501 during the run (`assertAllModelled`).
   */
  stop(): Promise<void>;
}

/**
 * Throws an Error naming every route the fake platform answered 501 because it does not model it (with how many
 * calls), so a run in which a service, the demo day or a test depended on such a route fails: a route the simulator
 * does not model proves nothing about the real platform (see docs/simulator.md).
 */
export function assertAllModelled(fake: Pick<FakePlatform, 'unmodelled'>): void {
  if (!fake.unmodelled.length) return;
  const counts = new Map<string, number>();
  for (const { method, route } of fake.unmodelled)
    counts.set(`${method} ${route}`, (counts.get(`${method} ${route}`) ?? 0) + 1);
  const routes = [...counts].map(([route, n]) => `${route} (${n} call${n === 1 ? '' : 's'})`);
  throw new Error(
    `The platform simulator answered 501 to ${fake.unmodelled.length} call(s) of routes it does not model ` +
      `(model them in libs/platform-simulator/src/routes):\n- ${routes.join('\n- ')}`,
  );
}

/** Offsets from the base port the system's processes listen on (scripts/stack.js): services, bridge, embedded
 * MongoDB, replicas and the gateway. */
const SYSTEM_PORT_OFFSETS = [1, 2, 3, 4, 5, 16, 17, 20, 21, 22, 23, 24, 25, 50];

/**
 * Boots the system: the fake platform with the fixture guild (see the `day` option) and a second guild,
 * the gateway, five services and the bridge as processes (embedded MongoDB in memory, a fresh NATS namespace), OAuth2
 * configured against the fake, staff tokens from a local JWKS, and the three providers' verification keys.
 * `mongoUrl` / `natsUrl` point the system at a MongoDB / NATS server the caller runs (fault tests stop them);
 * defaults: `MONGO_URL` or an in-memory embedded MongoDB, and the test NATS server.
 */
export async function startSystem(
  opts: {
    /** Print the processes' output (true), hand it to a function, or keep the last lines to print on a failed start. */
    log?: boolean | ((name: string, line: string) => void);
    env?: Record<string, string>;
    mongoUrl?: string;
    natsUrl?: string;
    /**
     * 'after' (default): the fixture guild's day is driven through the fake platform before the bridge connects (the
     * bot is away: the platform's state changes, no dispatch reaches the system), so the bridge finds the guild as
     * the day left it. 'play': the fixture guild does not exist until `sys.dayPlayer.play()` drives the day through
     * the running system.
     */
    day?: 'after' | 'play';
    /**
     * The browser tests' setting: the dashboard is the one the gateway serves, so the gateway's own origin comes first
     * in `DASHBOARD_ORIGINS` (the login lands there and its requests pass the CSRF check). Default: `DASHBOARD_ORIGIN`.
     */
    dashboardAtGateway?: boolean;
    /** Processes per service (e.g. `{ logs: 2 }`); replica k >= 2 is named `<service>-<k>` in `stack.kill/start`. */
    replicas?: Record<string, number>;
  } = {},
): Promise<System> {
  // The platform runs on the day's clock while the day is driven, on the wall clock otherwise; room to replay a whole
  // day to a bridge that was down while it was played (the fault tests).
  const clock = new DayClock();
  const fake = await startFakePlatform({ gateway: { replayBufferSize: 10_000 }, clock: { now: () => clock.now() } });
  const dayStart = recentDayStart();
  const driver = guildDayDriver(fake, dayStart, clock);
  const dayPlayer: GuildDayDriver = {
    get total() {
      return driver.total;
    },
    get sent() {
      return driver.sent;
    },
    get facts() {
      return driver.facts;
    },
    async play(count) {
      const left = await driver.play(count);
      if (!left) clock.release();
      return left;
    },
  };
  if (opts.day !== 'play') await dayPlayer.play();
  const other = sampleGuild({ name: 'Elsewhere' });
  fake.seedGuild(other);
  const guild = FIXTURE_IDS.guild;
  const manage = (id: string, name: string, owner: boolean) => ({ id, name, owner, permissions: owner ? '8' : '0' });
  const seeded = new Map<string, SeedUser>();
  const seedUser = (user: SeedUser) => {
    seeded.set(user.id, user);
    fake.seedUser(user);
  };
  seedUser({ id: USERS.owner, username: 'rowan89', guilds: [manage(guild, 'Lantern Hall', true)] });
  seedUser({ id: USERS.admin, username: 'selma39', guilds: [manage(guild, 'Lantern Hall', false)] });
  seedUser({ id: USERS.moderator, username: 'dario65', guilds: [manage(guild, 'Lantern Hall', false)] });
  seedUser({
    id: other.ids.owner,
    username: 'elsewhere-owner',
    guilds: [manage(other.ids.guild, 'Elsewhere', true)],
  });
  const staff = await startJwksServer('staff-1', { issuer: STAFF_ISSUER, audience: STAFF_AUDIENCE });
  const google = await startJwksServer('google-1', { audience: GOOGLE_AUDIENCE });
  const apple = makeAppleChain('E2E');
  const namespace = testNamespace();
  const basePort = await freePortBase(SYSTEM_PORT_OFFSETS);
  const gatewayPort = basePort + 50;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'guildhall-system-'));
  const natsUrl = opts.natsUrl ?? testNatsUrl();
  const lines: string[] = [];
  let stack: System['stack'];
  try {
    stack = await startStack({
      memory: true,
      dataDir,
      basePort,
      gatewayPort,
      bridge: true,
      replicas: opts.replicas,
      namespace,
      natsUrl,
      mongoUrl: opts.mongoUrl ?? process.env.MONGO_URL,
      dbPrefix: `e2e${namespace}`,
      log: (name: string, line: string) => {
        if (typeof opts.log === 'function') opts.log(name, line);
        else if (opts.log) process.stdout.write(`[${name}] ${line}\n`);
        else if (lines.push(`[${name}] ${line}`) > 400) lines.shift();
      },
      env: {
        LOG_LEVEL: 'warn',
        VALIDATE_RESPONSES: '1',
        PLATFORM_API_URL: fake.url,
        PLATFORM_BOT_TOKEN: 'e2e-bot-token',
        PLATFORM_CDN_URL: fake.cdnUrl,
        PLATFORM_OAUTH_URL: `${fake.origin}/oauth2/authorize`,
        OAUTH_CLIENT_ID: fake.clientId,
        OAUTH_CLIENT_SECRET: fake.clientSecret,
        OAUTH_REDIRECT_URI: `${gatewayUrl}/auth/callback`,
        DASHBOARD_ORIGINS: opts.dashboardAtGateway ? `${gatewayUrl},${DASHBOARD_ORIGIN}` : DASHBOARD_ORIGIN,
        COOKIE_SECURE: 'false',
        STAFF_JWKS_URL: staff.url,
        STAFF_JWT_ISSUER: STAFF_ISSUER,
        STAFF_JWT_AUDIENCE: STAFF_AUDIENCE,
        STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
        APPLE_ROOT_CERTS: apple.rootDer.toString('base64'),
        APPLE_BUNDLE_ID: APPLE_BUNDLE,
        APPLE_APP_APPLE_ID: '1234567890',
        APPLE_ONLINE_CHECKS: '0',
        GOOGLE_CERTS_URL: google.pemUrl,
        GOOGLE_AUDIENCE,
        GOOGLE_SERVICE_ACCOUNT: GOOGLE_ACCOUNT,
        GOOGLE_PACKAGE_NAME: GOOGLE_PACKAGE,
        ...opts.env,
      },
    });
  } catch (err) {
    process.stderr.write(`${lines.join('\n')}\n`);
    throw err;
  }

  const login = async (userId: string): Promise<string> => {
    const start = await fetch(`${gatewayUrl}/auth/login`, { redirect: 'manual' });
    const stateCookie = start.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const authorize = new URL(start.headers.get('location')!);
    authorize.searchParams.set('user', userId);
    const consent = await fetch(authorize, { redirect: 'manual' });
    const callback = await fetch(consent.headers.get('location')!, {
      redirect: 'manual',
      headers: { cookie: stateCookie },
    });
    const session = callback.headers.getSetCookie().find((c) => c.startsWith('service_session='));
    if (!session) throw new Error(`login of ${userId} failed: ${callback.status} ${await callback.text()}`);
    return session.split(';')[0]!.slice('service_session='.length);
  };

  return {
    gatewayUrl,
    namespace,
    guild,
    get day() {
      return driver.facts;
    },
    dayStart,
    otherGuild: { id: other.ids.guild, owner: other.ids.owner },
    fake,
    staff,
    google,
    apple,
    stack,
    platformAccount: (userId) => {
      const user = seeded.get(userId);
      if (!user) throw new Error(`${userId} is not a user startSystem seeded`);
      fake.seedUser(user);
    },
    login,
    staffToken: (claims = {}, o = {}) =>
      staff.sign(
        { staff: true, username: STAFF_USER.username, name: STAFF_USER.name, flag: STAFF_USER.flag, ...claims },
        {
          subject: (claims.sub as string | undefined) ?? STAFF_USER.sub,
          ...o,
        },
      ),
    natsUrl,
    dayPlayer,
    async stop() {
      await stack.stop();
      await Promise.all([fake.close(), staff.close(), google.close()]);
      await deleteNamespace(namespace);
      rmSync(dataDir, { recursive: true, force: true });
      assertAllModelled(fake);
    },
  };
}
