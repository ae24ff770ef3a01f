import { type RunningService, startService } from '@guildhall/shared';
import { deleteNamespace, stopTestMongo, testDbName, testMongoUrl, testServiceEnv } from '@guildhall/testkit';
import { main } from '../src/cli/createSession';
import type { GatewayConfig } from '../src/config';
import { definition } from '../src/service';

let gateway: RunningService<GatewayConfig> | undefined;
const db = testDbName('gateway');

afterAll(async () => {
  await gateway?.stop();
  if (gateway) await deleteNamespace(gateway.ctx.config.NATS_NAMESPACE);
  await stopTestMongo();
});

function capture(): { out: () => string; err: () => string; restore: () => void } {
  let out = '';
  let err = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  return {
    out: () => out,
    err: () => err,
    restore: () => {
      o.mockRestore();
      e.mockRestore();
    },
  };
}

describe('createSession operator command', () => {
  it('refuses bad arguments with usage (exit 2)', async () => {
    const io = capture();
    const code = await main(['--user', 'abc'], { MONGO_URL: 'mongodb://127.0.0.1:1', MONGO_DB: db });
    io.restore();
    expect(code).toBe(2);
    expect(io.err()).toMatch(/--user must be a platform user id/);
    expect(io.err()).toMatch(/usage:/);
  });

  it('creates a session the gateway accepts, printing the cookie and a curl example', async () => {
    const io = capture();
    const code = await main(['--user', '300000000000000001', '--name', 'Operator', '--ttl-hours', '2'], {
      MONGO_URL: await testMongoUrl(),
      MONGO_DB: db,
      GATEWAY_URL: 'http://127.0.0.1:3000',
    });
    io.restore();
    expect(code).toBe(0);
    const cookie = /^service_session=([A-Za-z0-9_-]{43})$/m.exec(io.out())?.[1];
    expect(cookie).toBeDefined();
    expect(io.out()).toContain(`curl -H 'Cookie: service_session=${cookie}' http://127.0.0.1:3000/auth/me`);

    gateway = (await startService(
      definition,
      await testServiceEnv('gateway', { MONGO_DB: db, COOKIE_SECURE: '0' }),
    )) as unknown as RunningService<GatewayConfig>;
    const me = await fetch(`${gateway.url}/auth/me`, { headers: { cookie: `service_session=${cookie}` } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { user: { id: string; name: string }; guilds: unknown[]; expiresAt: string };
    expect(body.user).toMatchObject({ id: '300000000000000001', name: 'Operator' });
    expect(body.guilds).toEqual([]);
    const ttl = Date.parse(body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(7_100_000);
    expect(ttl).toBeLessThanOrEqual(7_200_000);
  });
});
