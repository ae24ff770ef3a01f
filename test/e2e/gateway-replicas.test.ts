import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, type System, startSystem, waitFor } from '@guildhall/testkit';

/** Requests per user per window; the access test polls both replicas for up to 1 s, well under it. */
const PER_USER = 60;
const ROOT = path.resolve(__dirname, '../..');
let sys: System;
let second: { url: string; port: number; child: ChildProcess };

/** A TCP port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts another gateway process of the system on `port` (same config, MongoDB and NATS) and waits until ready. */
async function startGateway(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'services/gateway/dist/main.js')], {
    env: { ...sys.stack.envOf('gateway'), PORT: String(port) },
    stdio: 'ignore',
  });
  await waitFor(
    () =>
      fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
    Boolean,
    30_000,
  );
  return child;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

beforeAll(async () => {
  sys = await startSystem({
    env: {
      RATE_LIMIT_PER_USER: String(PER_USER),
      RATE_LIMIT_PER_IP: '100000',
      // One window for the whole test (windows are aligned to the clock): a boundary inside it is unlikely.
      RATE_LIMIT_WINDOW_MS: String(24 * 3_600_000),
      // Far longer than the test: only an invalidation can end a cached answer in time.
      ACCESS_CACHE_MS: '600000',
    },
  });
  const port = await freePort();
  second = { port, url: `http://127.0.0.1:${port}`, child: await startGateway(port) };
}, 120_000);
afterAll(async () => {
  if (second) await killed(second.child);
  await sys?.stop();
}, 60_000);

const get = (base: string, path: string, session: string) =>
  fetch(`${base}${path}`, { headers: { cookie: `service_session=${session}`, origin: DASHBOARD_ORIGIN } });

describe('two gateway replicas', () => {
  it('share the per-user rate limit: reached after N requests spread over both, kept by a restarted replica', async () => {
    const admin = await sys.login(FIXTURE_IDS.admin);
    const path = `/api/v1/servers/${sys.guild}/structure`;
    const replicas = [sys.gatewayUrl, second.url];
    const statuses: number[] = [];
    for (let i = 0; i < PER_USER; i++) statuses.push((await get(replicas[i % 2]!, path, admin)).status);
    expect(statuses).toEqual(Array(PER_USER).fill(200));
    for (const base of replicas) {
      const refused = await get(base, path, admin);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    await killed(second.child);
    second.child = await startGateway(second.port);
    expect((await get(second.url, path, admin)).status).toBe(429);
    // Another user has their own count on both replicas.
    const owner = await sys.login(FIXTURE_IDS.owner);
    expect((await get(second.url, path, owner)).status).toBe(200);
  }, 60_000);

  it('deny a member stripped of their staff role on the platform within 1 s on both replicas', async () => {
    const owner = await sys.login(FIXTURE_IDS.owner);
    const moderator = await sys.login(FIXTURE_IDS.moderator);
    const role = FIXTURE_IDS.roles.moderator;
    const put = await fetch(`${sys.gatewayUrl}/api/v1/servers/${sys.guild}/staff/${role}`, {
      method: 'PUT',
      headers: {
        cookie: `service_session=${owner}`,
        origin: DASHBOARD_ORIGIN,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ caps: ['structure.read'] }),
    });
    expect(put.status).toBeLessThan(300);
    const path = `/api/v1/servers/${sys.guild}/structure`;
    const replicas = [sys.gatewayUrl, second.url];
    // The staff change reaches both replicas' cached answers too (each asked, and cached, before it).
    await waitFor(
      () => Promise.all(replicas.map(async (base) => (await get(base, path, moderator)).status)),
      (s) => s.every((status) => status === 200),
      2_000,
    );

    await sys.fake.actAsUser(FIXTURE_IDS.owner).editMember(sys.guild, FIXTURE_IDS.moderator, { roles: [] });
    const removed = Date.now();
    const statuses = await waitFor(
      () => Promise.all(replicas.map(async (base) => (await get(base, path, moderator)).status)),
      (s) => s.every((status) => status === 403),
      1_000,
    );
    expect(statuses).toEqual([403, 403]);
    expect(Date.now() - removed).toBeLessThan(1_000);
  }, 60_000);
});
