/**
 * Boots the whole system for the benchmark and the soak test: the fake platform seeded with the fixture guild
 * "Lantern Hall", identity/provider keys, an embedded MongoDB in memory (its own process with a large heap, since
 * the 1,000,000-message step keeps everything in RAM) unless MONGO_URL is set, NATS on a fresh namespace, the five
 * services and the gateway as separate processes (`scripts/stack.js`). Loads the built `dist/` of libs/shared.
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { startStack, stopChild, ROOT } = require('../../scripts/stack.js');
const testing = require('../../libs/shared/dist/testing');
const bridge = require('../../libs/shared/dist/platformBridge');

const DASHBOARD_ORIGIN = 'http://dashboard.guildhall.bench';
const STAFF = { issuer: 'https://id.guildhall.bench', audience: 'guildhall-staff-api' };
const GOOGLE_AUDIENCE = 'https://guildhall.bench/api/webhooks/android-store';

/** True when nothing listens on 127.0.0.1:`port`. */
function portFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A base port (the system uses base+1..5, +17, +50): a random block of 100 between 20,000 and 32,000, below
 * Linux's ephemeral range (outgoing connections take ports there), whose ports are all free now.
 */
async function freePortBase() {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 120) * 100;
    const ports = [1, 2, 3, 4, 5, 17, 50].map((offset) => base + offset);
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base;
  }
}

/** Starts the embedded MongoDB CLI in memory with `heapMb` of V8 heap; resolves with its URL once it listens. */
function startBigMongo(port, heapMb) {
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      path.join(ROOT, 'libs/embedded-mongo/dist/cli.js'),
      '--port',
      String(port),
      '--memory',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk.toString();
      const m = /listening on (mongodb:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        resolve({ url: m[1], child });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => {
      out += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`embedded MongoDB exited (${code}): ${out.slice(-2000)}`)));
  });
}

/**
 * The system as the bench uses it: `{gatewayUrl, urls, stack, fake, guild, namespace, mongoUrl, natsUrl,
 * identitySecret, login(userId) -> session cookie value, stop()}`. `log(name, line)` receives process output
 * (warnings and errors only: LOG_LEVEL=warn). Rate limits are raised so that load generators measure throughput,
 * not the limiter (each request is still counted by it).
 */
async function startBenchSystem({ log, env = {} } = {}) {
  const fake = await testing.startFakePlatform();
  const dayStart = bridge.recentDayStart();
  fake.seedGuild(bridge.fixtureSeedGuild(fake.botUserId, 'end', dayStart));
  const guild = bridge.FIXTURE_IDS.guild;
  const manage = (id, name, owner) => ({ id, name, owner, permissions: owner ? '8' : '0' });
  const ids = bridge.FIXTURE_IDS;
  fake.seedUser({ id: ids.owner, username: 'rowan89', guilds: [manage(guild, 'Lantern Hall', true)] });
  fake.seedUser({ id: ids.moderator, username: 'dario65', guilds: [manage(guild, 'Lantern Hall', false)] });
  const staff = await testing.startJwksServer('staff-1', STAFF);
  const google = await testing.startJwksServer('google-1', { audience: GOOGLE_AUDIENCE });
  const apple = testing.makeAppleChain('BENCH');
  const namespace = testing.testNamespace();
  const basePort = await freePortBase();
  const gatewayPort = basePort + 50;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'guildhall-bench-'));
  const mongo = process.env.MONGO_URL ? null : await startBigMongo(basePort + 17, 16_384);
  const mongoUrl = process.env.MONGO_URL ?? mongo.url;
  let stack;
  try {
    stack = await startStack({
      dataDir,
      basePort,
      gatewayPort,
      namespace,
      natsUrl: testing.testNatsUrl(),
      mongoUrl,
      dbPrefix: `bench${namespace}`,
      log,
      env: {
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_IP: '100000000',
        RATE_LIMIT_PER_USER: '100000000',
        PLATFORM_API_URL: fake.url,
        PLATFORM_BOT_TOKEN: 'bench-bot-token',
        PLATFORM_OAUTH_URL: `${fake.origin}/oauth2/authorize`,
        OAUTH_CLIENT_ID: fake.clientId,
        OAUTH_CLIENT_SECRET: fake.clientSecret,
        OAUTH_REDIRECT_URI: `${gatewayUrl}/auth/callback`,
        DASHBOARD_ORIGINS: DASHBOARD_ORIGIN,
        COOKIE_SECURE: 'false',
        STAFF_JWKS_URL: staff.url,
        STAFF_JWT_ISSUER: STAFF.issuer,
        STAFF_JWT_AUDIENCE: STAFF.audience,
        STRIPE_WEBHOOK_SECRET: 'whsec_bench_guildhall_0123456789abcdef',
        APPLE_ROOT_CERTS: apple.rootDer.toString('base64'),
        APPLE_BUNDLE_ID: 'gg.guildhall.app',
        APPLE_APP_APPLE_ID: '1234567890',
        APPLE_ONLINE_CHECKS: '0',
        GOOGLE_JWKS_URL: google.url,
        GOOGLE_AUDIENCE,
        GOOGLE_SERVICE_ACCOUNT: 'play-rtdn@guildhall-bench.iam.gserviceaccount.com',
        GOOGLE_PACKAGE_NAME: 'gg.guildhall.app',
        ...env,
      },
    });
  } catch (err) {
    if (mongo) await stopChild(mongo.child);
    await Promise.all([fake.close(), staff.close(), google.close()]);
    throw err;
  }

  /** Signs `userId` in through the gateway's OAuth2 login against the fake platform; returns the cookie value. */
  const login = async (userId) => {
    const start = await fetch(`${gatewayUrl}/auth/login`, { redirect: 'manual' });
    const stateCookie = start.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const authorize = new URL(start.headers.get('location'));
    authorize.searchParams.set('user', userId);
    const consent = await fetch(authorize, { redirect: 'manual' });
    const callback = await fetch(consent.headers.get('location'), {
      redirect: 'manual',
      headers: { cookie: stateCookie },
    });
    const session = callback.headers.getSetCookie().find((c) => c.startsWith('service_session='));
    if (!session) throw new Error(`login of ${userId} failed: ${callback.status} ${await callback.text()}`);
    return session.split(';')[0].slice('service_session='.length);
  };

  return {
    gatewayUrl,
    urls: stack.urls,
    stack,
    fake,
    guild,
    namespace,
    mongoUrl,
    natsUrl: testing.testNatsUrl(),
    identitySecret: stack.identitySecret,
    dbName: (service) => stack.envOf(service).MONGO_DB,
    mongoPid: mongo?.child.pid ?? null,
    dashboardOrigin: DASHBOARD_ORIGIN,
    login,
    async stop() {
      await stack.stop();
      if (mongo) await stopChild(mongo.child);
      await Promise.all([fake.close(), staff.close(), google.close()]);
      await testing.deleteNamespace(namespace);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

module.exports = { startBenchSystem, DASHBOARD_ORIGIN };
