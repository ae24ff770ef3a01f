import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, STRIPE_SECRET, type System, startSystem } from '@guildhall/testkit';
import Stripe from 'stripe';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

/**
 * Issue 32's gateway edges through the gateway against the simulator: a body a route cannot use is refused and
 * changes nothing (400 `body_not_allowed` on a route that takes none, 415 `unsupported_media_type` for a body that
 * is not JSON), the payment provider's raw body still passes; an OAuth2 `state` is used once (a kept state cookie
 * and state replayed with a new code get no second session).
 */
let sys: System;
const coverage = new Coverage();
let anonymous: ApiClient;
let owner: ApiClient;
let ownerCookie: string;
let g: string;

beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_PER_USER: '100000', RATE_LIMIT_PER_IP: '100000' } });
  g = `/api/v1/servers/${sys.guild}`;
  anonymous = new ApiClient(sys.gatewayUrl, coverage);
  ownerCookie = await sys.login(FIXTURE_IDS.owner);
  owner = anonymous.as({ cookie: ownerCookie, origin: DASHBOARD_ORIGIN });
}, 180_000);
afterAll(async () => {
  await sys?.stop();
}, 60_000);

/** The platform's write calls (anything but GET) so far. */
function platformWrites(): number {
  return sys.fake.calls.filter((c) => c.method !== 'GET').length;
}

describe('bodies a route cannot use', () => {
  it('when a ticket blacklist add carries a JSON body, then 400 body_not_allowed and nobody is blacklisted', async () => {
    const writes = platformWrites();
    const refused = expectStatus(
      await owner.put(`${g}/tickets/blacklist/${FIXTURE_IDS.moderator}`, { $set: { blacklist: [] }, reason: 'x' }),
      400,
    );
    expect(refused.body).toMatchObject({ code: 'body_not_allowed', errors: [{ field: 'body' }] });
    expect(expectStatus(await owner.get(`${g}/tickets/settings`), 200).body.settings.blacklist).toEqual([]);
    expect(platformWrites()).toBe(writes);
  });

  it('when a ticket type delete carries a body, then 400 body_not_allowed and the type is still there', async () => {
    const type = expectStatus(await owner.post(`${g}/tickets/types`, { name: 'Kept', oneOpen: true }), 201).body;
    const refused = expectStatus(await owner.send('DELETE', `${g}/tickets/types/${type.id}`, {}), 400);
    expect(refused.body).toMatchObject({ code: 'body_not_allowed' });
    const types = expectStatus(await owner.get(`${g}/tickets/settings`), 200).body.types as Array<{ id: string }>;
    expect(types.map((t) => t.id)).toContain(type.id);
    expectStatus(await owner.send('DELETE', `${g}/tickets/types/${type.id}`), 204);
  });

  it('when a promo code revoke is sent with a text/plain body, then 415 unsupported_media_type and the code is not revoked', async () => {
    const bearer = await sys.staffToken();
    const staff = anonymous.as({ bearer });
    const batch = expectStatus(
      await staff.post('/api/staff/promo', {
        note: 'edges',
        days: 7,
        count: 1,
        redeem_by: new Date(Date.now() + 86_400_000).toISOString(),
      }),
      201,
    ).body.batch.id as string;
    const [code] = expectStatus(await staff.get(`/api/staff/promo/${batch}`), 200).body.codes as Array<{
      code: string;
    }>;
    const path = `/api/staff/promo/${batch}/codes/${code!.code}/revoke`;
    const refused = await anonymous.raw(path, '{}', {
      authorization: `Bearer ${bearer}`,
      'content-type': 'text/plain',
    });
    expect(refused.status).toBe(415);
    expect(refused.body).toMatchObject({ code: 'unsupported_media_type' });
    const untyped = await anonymous.raw(path, Buffer.from('{}'), { authorization: `Bearer ${bearer}` });
    expect(untyped.status).toBe(415);
    const read = expectStatus(await staff.get(`/api/staff/promo/${batch}`), 200).body;
    expect(read.codes[0]).toMatchObject({ code: code!.code, revoked: false });
    expect(expectStatus(await staff.post(path), 200).body).toMatchObject({ code: code!.code, revoked: true });
  });

  it('when a case is created with a JSON body as text/plain, then 415 and no case exists', async () => {
    const before = expectStatus(await owner.get(`${g}/cases?limit=100`), 200).body.cases.length;
    const body = JSON.stringify({ target: FIXTURE_IDS.moderator, action: 'warn', reason: 'edges' });
    const refused = await anonymous.raw(`${g}/cases`, body, {
      cookie: `service_session=${ownerCookie}`,
      origin: DASHBOARD_ORIGIN,
      'content-type': 'text/plain;charset=UTF-8',
    });
    expect(refused.status).toBe(415);
    expect(expectStatus(await owner.get(`${g}/cases?limit=100`), 200).body.cases).toHaveLength(before);
  });

  it('when a payment provider posts a signed event, then its raw body still reaches billing and is accepted (204)', async () => {
    const event = JSON.stringify({
      id: 'evt_edges_gateway',
      object: 'event',
      type: 'customer.created',
      created: Math.floor(Date.now() / 1000),
      api_version: '2025-09-30',
      data: { object: { id: 'cus_edges', object: 'customer' } },
    });
    const header = Stripe.webhooks.generateTestHeaderString({ payload: event, secret: STRIPE_SECRET });
    const ok = await anonymous.raw('/api/webhooks/payments', event, {
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': header,
    });
    expect(ok.status).toBe(204);
  });
});

describe('OAuth2 state', () => {
  /** Starts a login and returns the kept state cookie and the platform's authorize URL for the fixture owner. */
  async function startLogin(): Promise<{ cookie: string; authorize: URL }> {
    const start = await fetch(`${sys.gatewayUrl}/auth/login`, { redirect: 'manual' });
    const cookie = start.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const authorize = new URL(start.headers.get('location')!);
    authorize.searchParams.set('user', FIXTURE_IDS.owner);
    return { cookie, authorize };
  }

  /** Consents at the platform (a new code each time, the same state) and calls the gateway's callback. */
  async function callback(login: { cookie: string; authorize: URL }): Promise<Response> {
    const consent = await fetch(login.authorize, { redirect: 'manual' });
    return fetch(consent.headers.get('location')!, { redirect: 'manual', headers: { cookie: login.cookie } });
  }

  function sessionOf(res: Response): string | undefined {
    return res.headers
      .getSetCookie()
      .find((c) => /^service_session=[^;]/.test(c))
      ?.split(';')[0];
  }

  it('when a kept state cookie and state are replayed with a new code, then the second exchange is refused (400) and gives no session', async () => {
    const login = await startLogin();
    const first = await callback(login);
    expect(first.status).toBe(302);
    expect(sessionOf(first)).toBeDefined();
    const exchanges = sys.fake.callsTo('POST', '/oauth2/token').length;
    const replay = await callback(login);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('content-type')).toContain('application/problem+json');
    expect(await replay.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'query.state' }] });
    expect(sessionOf(replay)).toBeUndefined();
    expect(sys.fake.callsTo('POST', '/oauth2/token')).toHaveLength(exchanges);
  });

  it('when two callbacks race with the same state, then exactly one gets a session', async () => {
    const login = await startLogin();
    const answers = await Promise.all([callback(login), callback(login)]);
    expect(answers.map((a) => a.status).sort()).toEqual([302, 400]);
    expect(answers.filter((a) => sessionOf(a))).toHaveLength(1);
  });
});
