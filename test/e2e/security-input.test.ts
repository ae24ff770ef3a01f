import { type ApiRoute, apiRoutes } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem } from '@guildhall/testkit';
import fc from 'fast-check';
import type { Answer } from './support/client';
import { Coverage } from './support/coverage';
import { pathOf, sampleBody } from './support/securityCases';
import { type FuzzInput, fuzzInputs, queryString } from './support/securityFuzz';
import { prepareSecurityWorld, type SecurityWorld } from './support/securitySetup';
import { guildSnapshot, settledSnapshot, writeCalls } from './support/securitySnapshot';

let sys: System;
let world: SecurityWorld;
const coverage = new Coverage();
/** Runs per endpoint: 46 endpoints x 20 keeps the fuzz at one to two minutes on two cores. */
const RUNS_PER_ENDPOINT = 20;

beforeAll(async () => {
  sys = await startSystem({
    day: 'play',
    log: process.env.SECURITY_LOG === '1',
    env: { RATE_LIMIT_PER_USER: '1000000', RATE_LIMIT_PER_IP: '1000000' },
  });
  world = await prepareSecurityWorld(sys, coverage);
}, 180_000);
afterAll(async () => {
  await sys?.stop();
}, 60_000);

/** The credential headers of the right caller of `route` (cookie + Origin, staff bearer, or none for webhooks). */
function credentials(route: ApiRoute): Record<string, string> {
  if (route.auth === 'staff') return { authorization: `Bearer ${world.staffToken}` };
  if (route.auth === 'webhook') return {};
  const session = route.auth === 'member' ? world.memberSession : world.ownerSession;
  return { cookie: `service_session=${session}`, origin: DASHBOARD_ORIGIN };
}

/** Sends a generated request as the route's right caller; answers status, content type and body text. */
async function send(route: ApiRoute, input: FuzzInput): Promise<{ status: number; type: string; text: string }> {
  const headers = credentials(route);
  let body: string | undefined;
  if (input.body) {
    headers['content-type'] = 'application/json';
    body = 'raw' in input.body ? input.body.raw : JSON.stringify(input.body.json);
  }
  const res = await fetch(`${sys.gatewayUrl}${pathOf(route, world.ids)}${queryString(input.query)}`, {
    method: route.method.toUpperCase(),
    headers,
    body,
    redirect: 'manual',
  });
  const text = await res.text();
  coverage.record(route.method.toUpperCase(), pathOf(route, world.ids), res.status);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}

/** Every process of the system answers /readyz with 200. */
async function everyProcessReady(): Promise<Record<string, number>> {
  const urls: Record<string, string> = { ...sys.stack.urls, gateway: sys.gatewayUrl };
  const entries = await Promise.all(
    Object.entries(urls).map(async ([name, url]) => [name, (await fetch(`${url}/readyz`)).status] as const),
  );
  return Object.fromEntries(entries);
}

/** Expects a 400 problem whose field errors (or detail) name `field`. */
function expectFieldRefused(res: Answer, field: string): void {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(`${JSON.stringify(res.body.errors ?? [])} ${res.body.detail}`).toContain(field);
}

describe('MongoDB operator injection', () => {
  it('operators and odd keys in queries, bodies and paths are refused with 400 naming the field; nothing changes', async () => {
    const { owner, member, staff } = world.callers;
    const g = `/api/v1/servers/${sys.guild}`;
    const before = await settledSnapshot(sys, owner, sys.guild, [world.ids.member]);
    const mark = sys.fake.calls.length;

    expectFieldRefused(await owner.get(`${g}/journal?actor[$gt]=`), 'actor');
    expectFieldRefused(await owner.get(`${g}/journal?kind[$ne]=member_ban`), 'kind');
    expectFieldRefused(await owner.get(`${g}/journal?actor=1&actor=2`), 'actor');
    expectFieldRefused(await owner.get(`${g}/messages?q[$regex]=.*`), 'q');
    expectFieldRefused(await owner.get(`${g}/messages?channel[$exists]=true`), 'channel');
    expectFieldRefused(await owner.get(`${g}/appeals?status[$ne]=denied`), 'status');
    expectFieldRefused(await staff.get('/api/staff/billing/notifications?status[$ne]=x'), 'status');

    const reason = 'security suite: injection';
    expectFieldRefused(await owner.post(`${g}/cases`, { target: { $gt: '' }, action: 'warn', reason }), 'target');
    expectFieldRefused(
      await owner.post(`${g}/cases`, { target: world.ids.member, action: { $ne: 'x' }, reason }),
      'action',
    );
    expectFieldRefused(await owner.patch(`${g}/cases/${world.ids.caseNumber}`, { reason: { $ne: null } }), 'reason');
    expectFieldRefused(await owner.post(`${g}/premium/redeem`, { code: { $ne: '' } }), 'code');
    expectFieldRefused(await owner.post(`${g}/premium/redeem`, { code: { $regex: '.*' } }), 'code');
    expectFieldRefused(await owner.put(`${g}/staff/${world.ids.staffRole}`, { caps: { $in: ['cases.read'] } }), 'caps');
    expectFieldRefused(await owner.patch(`${g}/tickets/settings`, { $where: 'sleep(5000) || true' }), '$where');
    expectFieldRefused(
      await owner.patch(`${g}/tickets/settings`, { 'settings.pingStaff': true }),
      'settings.pingStaff',
    );
    expectFieldRefused(await owner.patch(`${g}/tickets/settings`, { pingStaff: true, $set: { guild: '1' } }), '$set');
    expectFieldRefused(
      await owner.put(`${g}/forums/${world.ids.forum}`, {
        statuses: [{ tag: world.ids.tag, reply: 'x', rewardRole: null, lock: false, archiveAfter: 0, $set: { a: 1 } }],
      }),
      'statuses',
    );
    expectFieldRefused(
      await owner.send('PATCH', `${g}/cases/${world.ids.caseNumber}`, undefined, {
        'content-type': 'application/json',
      }),
      'reason',
    );
    const proto = await fetch(`${sys.gatewayUrl}${g}/cases/${world.ids.caseNumber}`, {
      method: 'PATCH',
      headers: {
        cookie: `service_session=${world.ownerSession}`,
        origin: DASHBOARD_ORIGIN,
        'content-type': 'application/json',
      },
      body: '{"reason":"proto","__proto__":{"status":"revoked"}}',
    });
    expect(proto.status).toBe(400);
    expect(await proto.text()).toContain('__proto__');
    expectFieldRefused(
      await member.post(`/api/v1/record/${sys.guild}/appeals`, {
        text: 'Please look at this again, it was not me.',
        caseNumber: { $gt: 0 },
      }),
      'caseNumber',
    );
    expectFieldRefused(await owner.get(`${g}/members/${encodeURIComponent('{"$gt":""}')}`), 'user');
    expectFieldRefused(await owner.send('DELETE', `${g}/tickets/types/${encodeURIComponent('$ne')}`), 'type');
    expectFieldRefused(await staff.get(`/api/staff/promo/${encodeURIComponent('{"$ne":null}')}`), 'batch_id');

    expect(writeCalls(sys.fake, mark)).toEqual([]);
    expect(await guildSnapshot(owner, sys.guild, [world.ids.member])).toEqual(before);
  });
});

describe('body size limit', () => {
  it('refuses a body over BODY_LIMIT with 413, announced or streamed, before authentication', async () => {
    const g = `/api/v1/servers/${sys.guild}`;
    const big = JSON.stringify({ reason: 'x'.repeat(200 * 1024) });
    const announced = await world.callers.owner.patch(`${g}/cases/${world.ids.caseNumber}`, JSON.parse(big));
    expect(announced.status).toBe(413);
    const anonymous = await world.callers.anonymous.post(`${g}/cases`, JSON.parse(big));
    expect(anonymous.status).toBe(413);
    const chunks = [Buffer.from('{"reason":"'), Buffer.alloc(300 * 1024, 'y'), Buffer.from('"}')];
    const stream = new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
    const streamed = await fetch(`${sys.gatewayUrl}${g}/cases/${world.ids.caseNumber}`, {
      method: 'PATCH',
      headers: {
        cookie: `service_session=${world.ownerSession}`,
        origin: DASHBOARD_ORIGIN,
        'content-type': 'application/json',
      },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(streamed.headers.get('content-type')).toContain('application/problem+json');
    const kase = await world.callers.owner.get(`${g}/members/${world.ids.member}`);
    expect(
      kase.body.cases.some((c: { reason: string }) => c.reason.startsWith('yyy') || c.reason.startsWith('xxx')),
    ).toBe(false);
  });
});

describe('property-based fuzzing of every endpoint', () => {
  it('never answers 5xx or a non-problem error, keeps every process up, and changes nothing on a 4xx', async () => {
    const summary: string[] = [];
    const changed: string[] = [];
    for (const route of apiRoutes) {
      const sample = sampleBody(route, world.ids);
      const before = await settledSnapshot(sys, world.callers.owner, sys.guild, [world.ids.member], 5_000);
      const mark = sys.fake.calls.length;
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(fuzzInputs(route, sample), async (input) => {
          const res = await send(route, input);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) throw new Error(`${route.id}: ${res.status} ${res.text.slice(0, 300)}`);
          if (res.status >= 400 && !res.type.includes('application/problem+json')) {
            throw new Error(`${route.id}: ${res.status} is not problem+json: ${res.text.slice(0, 200)}`);
          }
        }),
        { numRuns: RUNS_PER_ENDPOINT },
      );
      const onlyRefused = [...statuses.keys()].every((s) => s >= 400);
      if (onlyRefused) {
        const writes = writeCalls(sys.fake, mark);
        const after = await guildSnapshot(world.callers.owner, sys.guild, [world.ids.member]);
        if (writes.length > 0 || JSON.stringify(after) !== JSON.stringify(before)) changed.push(route.id);
      }
      summary.push(
        `${route.id.padEnd(26)} ${[...statuses]
          .sort((a, b) => a[0] - b[0])
          .map(([s, n]) => `${s}x${n}`)
          .join(' ')}${onlyRefused ? '' : '  (some inputs were valid: state check skipped)'}`,
      );
    }
    console.log(`Fuzz (${RUNS_PER_ENDPOINT} runs per endpoint): statuses seen\n${summary.join('\n')}`);
    expect(changed).toEqual([]);
    expect(await everyProcessReady()).toEqual(
      Object.fromEntries([...Object.keys(sys.stack.urls), 'gateway'].map((name) => [name, 200])),
    );
    sys.fake.assertNoViolations();
  }, 300_000);
});
