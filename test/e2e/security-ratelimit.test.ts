import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, type System, startSystem } from '@guildhall/testkit';
import { type Answer, ApiClient } from './support/client';
import { Coverage } from './support/coverage';

const PER_USER = 5;
const PER_IP = 40;
/** Long enough that the requests of the test always fall into one window, however loaded the machine is. */
const WINDOW_S = 600;
let sys: System;
const coverage = new Coverage();

beforeAll(async () => {
  sys = await startSystem({
    env: {
      RATE_LIMIT_PER_USER: String(PER_USER),
      RATE_LIMIT_PER_IP: String(PER_IP),
      RATE_LIMIT_WINDOW_MS: String(WINDOW_S * 1000),
    },
  });
}, 120_000);
afterAll(async () => {
  await sys?.stop();
}, 60_000);

/** Expects a 429 problem with a positive whole `Retry-After` (seconds) no longer than the window. */
function expectLimited(res: Answer): void {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);
}

describe('rate limits (low limits: per user and per IP)', () => {
  it('answers 429 with Retry-After past the per-user limit, per user, and past the per-IP limit for everyone', async () => {
    const cookie = (s: string) => ({ cookie: s, origin: DASHBOARD_ORIGIN });
    const owner = new ApiClient(sys.gatewayUrl, coverage, cookie(await sys.login(FIXTURE_IDS.owner)));
    const admin = new ApiClient(sys.gatewayUrl, coverage, cookie(await sys.login(FIXTURE_IDS.admin)));
    const path = `/api/v1/servers/${sys.guild}/logs`;
    const first: number[] = [];
    for (let i = 0; i < PER_USER; i++) first.push((await owner.get(path)).status);
    expect(first).toEqual(Array(PER_USER).fill(200));
    const limited = await owner.get(path);
    expectLimited(limited);
    const writes = sys.fake.calls.filter((c) => c.method !== 'GET').length;
    expectLimited(await owner.put(path, { ignoredChannels: [], ignoreBots: true }));
    expect(sys.fake.calls.filter((c) => c.method !== 'GET').length).toBe(writes);
    expect((await owner.get(path)).status).toBe(429);

    expect((await admin.get(path)).status).toBe(200);

    const anonymous = new ApiClient(sys.gatewayUrl, coverage);
    const statuses: number[] = [];
    for (let i = 0; i < PER_IP; i++) statuses.push((await anonymous.get(path)).status);
    expect(statuses).toContain(401);
    const last = await anonymous.get(path);
    expectLimited(last);
    expectLimited(await admin.get(path));
    const ready = await fetch(`${sys.gatewayUrl}/readyz`);
    expect(ready.status).toBe(200);
  });
});
