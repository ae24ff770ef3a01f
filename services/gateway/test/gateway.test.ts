import { createServer, request as httpRequest, type Server } from 'node:http';
import { type FakePlatform, startFakePlatform } from '@guildhall/platform-simulator';
import {
  type AccessManyReply,
  type AccessManyRequest,
  type AccessReply,
  type AccessRequest,
  apiRoutes,
  bind,
  CAPS,
  communityRoutes,
  createApp,
  createLogger,
  createMetricsRegistry,
  EventBus,
  IDENTITY_HEADER,
  type Identity,
  mountRoutes,
  RPC,
  type RunningService,
  startService,
  verifyIdentity,
} from '@guildhall/shared';
import {
  deleteNamespace,
  identityHeaders,
  stopTestMongo,
  TEST_IDENTITY_SECRET,
  testNamespace,
  testNatsUrl,
  testServiceEnv,
  userIdentity,
} from '@guildhall/testkit';
import type { z } from 'zod';
import { createSession, hashSessionId } from '../src/auth/session';
import { SessionModel } from '../src/auth/sessionModel';
import type { GatewayConfig } from '../src/config';
import { definition } from '../src/service';
import { close, type Echoed, listen, startEcho, startJwks } from './helpers';
import { openApi31Problems } from './openapiCheck';

const DASH = 'http://dash.test';
const GUILD = '111111111111111111';
const OWNER = '200000000000000001';
const HELPER = '200000000000000002';
const OUTSIDER = '200000000000000003';
const BUSY = '200000000000000004';
const OAUTH_USER = '200000000000000005';
const ADMIN = '200000000000000006';
const STAFF_ID = '5b0e2f4e-9c1a-4d5e-8f00-0123456789ab';
const USER_LIMIT = 30;

const access: Record<string, AccessReply> = {
  [OWNER]: { member: true, owner: true, permissions: [], roles: [], caps: [...CAPS] },
  [HELPER]: { member: true, owner: false, permissions: [], roles: ['3001'], caps: ['tickets.read'] },
  [OUTSIDER]: { member: false, owner: false, permissions: [], roles: [], caps: [] },
  [ADMIN]: { member: true, owner: false, permissions: ['Administrator'], roles: [], caps: [...CAPS] },
  [BUSY]: { member: true, owner: true, permissions: [], roles: [], caps: [...CAPS] },
};

let fake: FakePlatform;
let gateway: RunningService<GatewayConfig>;
let peer: EventBus;
let ns: string;
let jwks: Awaited<ReturnType<typeof startJwks>>;
const echoes: Awaited<ReturnType<typeof startEcho>>[] = [];
let community: Server;
let communityUrl: string;
const communitySaw: Identity[] = [];
const accessAsked: AccessRequest[] = [];
const accessManyAsked: AccessManyRequest[] = [];

async function sessionFor(user: string, name = `user${user.slice(-4)}`): Promise<string> {
  const { id } = await createSession({
    user: { id: user, username: name, name, avatar: null },
    ttlMs: 3_600_000,
    source: 'operator',
  });
  return id;
}

function api(path: string, init: RequestInit & { cookie?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set('cookie', `service_session=${init.cookie}`);
  return fetch(`${gateway.url}${path}`, { ...init, headers, redirect: 'manual' });
}

async function expectProblem(
  res: Response,
  status: number,
  code?: string,
): Promise<{ detail: string; status: number; code: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as { detail: string; status: number; title: string; code: string };
  expect(body.status).toBe(status);
  expect(typeof body.code).toBe('string');
  if (code) expect(body.code).toBe(code);
  return body;
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await close(server);
  return url;
}

beforeAll(async () => {
  ns = testNamespace();
  fake = await startFakePlatform();
  jwks = await startJwks();
  for (const svc of ['moderation', 'tickets', 'billing']) echoes.push(await startEcho(svc));
  const logger = createLogger('community-test', 'silent');
  const app = createApp({
    name: 'community',
    logger,
    metrics: createMetricsRegistry('community'),
    metricsToken: '',
    trustProxy: false,
    isReady: () => true,
    mount: (express) =>
      mountRoutes(
        express,
        [
          bind(communityRoutes.getStructure, async ({ identity }) => {
            communitySaw.push(identity);
            return { roles: [], channels: [], botTop: 0 };
          }),
        ],
        { identitySecret: TEST_IDENTITY_SECRET, bodyLimit: '100kb', validateResponses: true, logger },
      ),
  });
  community = createServer(app);
  communityUrl = await listen(community);
  peer = await EventBus.connect({ url: testNatsUrl(), name: 'community-test', namespace: ns, logger });
  const accessOf = (guild: string, user: string): AccessReply =>
    (guild === GUILD ? access[user] : undefined) ?? {
      member: false,
      owner: false,
      permissions: [],
      roles: [],
      caps: [],
    };
  peer.reply<AccessRequest, AccessReply>(RPC.access, async (req) => {
    accessAsked.push(req);
    return accessOf(req.guild, req.user);
  });
  peer.reply<AccessManyRequest, AccessManyReply>(RPC.accessMany, async (req) => {
    accessManyAsked.push(req);
    return { answers: Object.fromEntries(req.guilds.map((g) => [g, accessOf(g, req.user)])) };
  });
  const env = await testServiceEnv('gateway', {
    NATS_NAMESPACE: ns,
    PLATFORM_API_URL: fake.url,
    PLATFORM_OAUTH_URL: `${fake.origin}/oauth2/authorize`,
    OAUTH_CLIENT_ID: fake.clientId,
    OAUTH_CLIENT_SECRET: fake.clientSecret,
    OAUTH_REDIRECT_URI: 'http://gateway.test/auth/callback',
    DASHBOARD_ORIGINS: `${DASH},http://other-dash.test`,
    COOKIE_SECURE: '0',
    STAFF_JWKS_URL: jwks.url,
    STAFF_JWT_ISSUER: 'https://id.test',
    STAFF_JWT_AUDIENCE: 'guildhall',
    MODERATION_URL: echoes[0]!.url,
    TICKETS_URL: echoes[1]!.url,
    BILLING_URL: echoes[2]!.url,
    COMMUNITY_URL: communityUrl,
    LOGS_URL: await closedPortUrl(),
    BODY_LIMIT: '1kb',
    RATE_LIMIT_PER_USER: String(USER_LIMIT),
    RATE_LIMIT_PER_IP: '100000',
  });
  gateway = (await startService(definition, env)) as unknown as RunningService<GatewayConfig>;
});

afterAll(async () => {
  await gateway?.stop();
  await peer?.close();
  await Promise.all(echoes.map((e) => e.close()));
  if (community) await close(community);
  await jwks?.close();
  await fake?.close();
  await deleteNamespace(ns);
  await stopTestMongo();
});

describe('sessions', () => {
  it('refuses a guild route without a session cookie (401)', async () => {
    const body = await expectProblem(await api(`/api/v1/servers/${GUILD}/tickets/settings`), 401);
    expect(body.detail).toMatch(/service_session/);
  });

  it('refuses an unknown or expired session (401)', async () => {
    await expectProblem(await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie: 'x'.repeat(43) }), 401);
    const raw = 'e'.repeat(43);
    await SessionModel.create({
      _id: hashSessionId(raw),
      user: { id: OWNER, username: 'o', name: 'o', avatar: null },
      source: 'operator',
      createdAt: new Date(Date.now() - 7_200_000),
      expiresAt: new Date(Date.now() - 1000),
    });
    await expectProblem(await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie: raw }), 401);
  });

  it('logout revokes the session at once', async () => {
    const cookie = await sessionFor(OWNER);
    expect((await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie })).status).toBe(200);
    const out = await api('/auth/logout', { method: 'POST', cookie, headers: { origin: DASH } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join(';')).toMatch(/service_session=;/);
    await expectProblem(await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie }), 401);
    await expectProblem(await api('/auth/me', { cookie }), 401);
    const stored = await SessionModel.findById(hashSessionId(cookie)).lean<{ revokedAt: Date | null }>();
    expect(stored?.revokedAt).toBeInstanceOf(Date);
  });
});

describe('guild access', () => {
  it('refuses a user without access to the guild (403)', async () => {
    const cookie = await sessionFor(OUTSIDER);
    const body = await expectProblem(await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie }), 403);
    expect(body.detail).toMatch(/no access/i);
  });

  it("refuses a staff member missing the route's cap, naming it (403)", async () => {
    const cookie = await sessionFor(HELPER);
    expect((await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie })).status).toBe(200);
    const res = await api(`/api/v1/servers/${GUILD}/tickets/panel`, {
      method: 'POST',
      cookie,
      headers: { origin: DASH, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: '1' }),
    });
    const body = await expectProblem(res, 403);
    expect(body.detail).toContain('tickets.manage');
  });

  it('proxies the right caller with a verified identity token, the request id, path and body unchanged', async () => {
    const cookie = await sessionFor(ADMIN, 'Admin');
    const before = accessAsked.length;
    const res = await api(`/api/v1/servers/${GUILD}/cases?reason=x%20y`, {
      method: 'POST',
      cookie,
      headers: {
        origin: DASH,
        'content-type': 'application/json',
        'x-request-id': 'req-gateway-1',
        [IDENTITY_HEADER]: 'forged',
      },
      body: JSON.stringify({ target: '42', action: 'warn', reason: 'spam' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-gateway-1');
    const echoed = (await res.json()) as Echoed;
    expect(echoed.service).toBe('moderation');
    expect(echoed.method).toBe('POST');
    expect(echoed.url).toBe(`/api/v1/servers/${GUILD}/cases?reason=x%20y`);
    expect(JSON.parse(echoed.body)).toEqual({ target: '42', action: 'warn', reason: 'spam' });
    expect(echoed.headers.cookie).toBeUndefined();
    expect(echoed.headers['x-request-id']).toBe('req-gateway-1');
    const identity = await verifyIdentity(echoed.headers[IDENTITY_HEADER] as string, TEST_IDENTITY_SECRET);
    expect(identity).toMatchObject({
      kind: 'user',
      sub: ADMIN,
      name: 'Admin',
      guild: GUILD,
    });
    expect(identity).not.toHaveProperty('requestId');
    expect(identity.caps).toEqual([...CAPS]);
    expect(accessAsked.slice(before)).toEqual([{ guild: GUILD, user: ADMIN }]);
    await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie });
    expect(accessAsked.length).toBe(before + 1);
  });

  it('member routes take any signed-in user, with the path guild', async () => {
    const cookie = await sessionFor(OUTSIDER);
    const res = await api(`/api/v1/record/${GUILD}/appeals`, {
      method: 'POST',
      cookie,
      headers: { origin: DASH, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'please' }),
    });
    expect(res.status).toBe(200);
    const echoed = (await res.json()) as Echoed;
    const identity = await verifyIdentity(echoed.headers[IDENTITY_HEADER] as string, TEST_IDENTITY_SECRET);
    expect(identity).toMatchObject({ kind: 'user', sub: OUTSIDER, guild: GUILD, caps: [] });
  });

  it('a real shared service accepts the proxied call and refuses a direct one without the token', async () => {
    const cookie = await sessionFor(OWNER);
    const res = await api(`/api/v1/servers/${GUILD}/structure`, { cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ roles: [], channels: [], botTop: 0 });
    expect(communitySaw.at(-1)).toMatchObject({ sub: OWNER, guild: GUILD });
    const direct = await fetch(`${communityUrl}/api/v1/servers/${GUILD}/structure`);
    await expectProblem(direct, 401);
    const forged = await fetch(`${communityUrl}/api/v1/servers/${GUILD}/structure`, {
      headers: { [IDENTITY_HEADER]: 'not-a-token' },
    });
    await expectProblem(forged, 401);
    const signed = await fetch(`${communityUrl}/api/v1/servers/${GUILD}/structure`, {
      headers: await identityHeaders(userIdentity(OWNER, GUILD, ['structure.read'])),
    });
    expect(signed.status).toBe(200);
  });

  it('answers 503 problem+json when the upstream service is down', async () => {
    const cookie = await sessionFor(OWNER);
    const body = await expectProblem(
      await api(`/api/v1/servers/${GUILD}/journal`, { cookie }),
      503,
      'upstream_unavailable',
    );
    expect(body.detail).toMatch(/logs/);
  });
});

describe('staff bearer tokens', () => {
  const path = `/api/staff/promo/${STAFF_ID}`;
  const claims = { sub: STAFF_ID, staff: true, preferred_username: 'ana', name: 'Ana', flag: 'admin' };

  it('proxies a valid staff token as a staff identity, without the bearer', async () => {
    const token = await jwks.sign(claims, { expiresIn: '5m' });
    const res = await api(path, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const echoed = (await res.json()) as Echoed;
    expect(echoed.headers.authorization).toBeUndefined();
    const identity = await verifyIdentity(echoed.headers[IDENTITY_HEADER] as string, TEST_IDENTITY_SECRET);
    expect(identity).toMatchObject({ kind: 'staff', sub: STAFF_ID, username: 'ana', name: 'Ana', flag: 'admin' });
  });

  it.each([
    ['missing', async () => ''],
    ['expired', async () => `Bearer ${await jwks.sign(claims, { expiresIn: Math.floor(Date.now() / 1000) - 60 })}`],
    ['without exp', async () => `Bearer ${await jwks.sign(claims, { expiresIn: null })}`],
    ['wrong audience', async () => `Bearer ${await jwks.sign(claims, { expiresIn: '5m', audience: 'other' })}`],
    ['wrong issuer', async () => `Bearer ${await jwks.sign(claims, { expiresIn: '5m', issuer: 'https://evil' })}`],
    [
      'forged',
      async () => {
        const other = await startJwks();
        await other.close();
        return `Bearer ${await other.sign(claims, { expiresIn: '5m' })}`;
      },
    ],
  ])('refuses a %s token (401)', async (_name, header) => {
    const authorization = await header();
    const res = await api(path, { headers: authorization ? { authorization } : {} });
    await expectProblem(res, 401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('refuses a valid token without the staff claim (403)', async () => {
    const token = await jwks.sign({ ...claims, staff: false }, { expiresIn: '5m' });
    await expectProblem(await api(path, { headers: { authorization: `Bearer ${token}` } }), 403);
  });

  it('proxies webhooks without credentials, raw bytes intact', async () => {
    const bytes = '{"id":"evt_1","type":"charge.succeeded"}';
    const res = await api('/api/webhooks/payments', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'x-signature': 'sig' },
      body: bytes,
    });
    expect(res.status).toBe(200);
    const echoed = (await res.json()) as Echoed;
    expect(echoed.body).toBe(bytes);
    expect(echoed.headers['x-signature']).toBe('sig');
    expect(echoed.headers[IDENTITY_HEADER]).toBeUndefined();
  });
});

describe('OAuth2 login', () => {
  async function login(next: string, extraCookie = ''): Promise<Response> {
    const start = await api(`/auth/login?next=${encodeURIComponent(next)}`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.origin}/oauth2/authorize`);
    expect(authorize.searchParams.get('scope')).toBe('identify guilds');
    expect(authorize.searchParams.get('client_id')).toBe(fake.clientId);
    const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith('service_oauth_state='))!;
    expect(stateCookie).toMatch(/HttpOnly/i);
    const platform = await fetch(authorize, { redirect: 'manual' });
    expect(platform.status).toBe(302);
    const back = new URL(platform.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe(authorize.searchParams.get('state'));
    return api(`/auth/callback${back.search}`, {
      headers: { cookie: [stateCookie.split(';')[0], extraCookie].filter(Boolean).join('; ') },
    });
  }

  it('signs in through the platform, sets the cookie and /auth/me works', async () => {
    fake.seedUser({
      id: OAUTH_USER,
      username: 'mira',
      global_name: 'Mira',
      guilds: [
        { id: GUILD, name: 'Guild', owner: false, permissions: String(1 << 5) },
        { id: '999', name: 'Other', owner: false, permissions: '0' },
        { id: '998', name: 'Mine', owner: true, permissions: '0' },
      ],
    });
    const old = await sessionFor(OAUTH_USER);
    const done = await login('/guilds/111?tab=cases', `service_session=${old}`);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${DASH}/guilds/111?tab=cases`);
    const cookie = done.headers.getSetCookie().find((c) => c.startsWith('service_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    const id = /^service_session=([^;]+)/.exec(cookie)![1]!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await api('/auth/me', { cookie: id });
    expect(me.status).toBe(200);
    const body = (await me.json()) as {
      user: { id: string; name: string };
      guilds: Array<{ id: string }>;
      cdnUrl: string;
    };
    expect(body.user).toEqual({ id: OAUTH_USER, username: 'mira', name: 'Mira', avatar: null });
    expect(body.guilds.map((g) => g.id).sort()).toEqual([GUILD, '998'].sort());
    expect(body.cdnUrl).toBe('https://cdn.discordapp.com');
    await expectProblem(await api('/auth/me', { cookie: old }), 401);
    const token = fake.callsTo('POST', '/oauth2/token');
    expect(token).toHaveLength(1);
    expect(token[0]!.body).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: 'http://gateway.test/auth/callback',
    });
    expect(fake.callsTo('GET', '/users/@me')).toHaveLength(1);
    expect(fake.callsTo('GET', '/users/@me/guilds')).toHaveLength(1);
    fake.assertNoViolations();
  });

  it('/auth/me lists staff guilds with their caps, the bot presence, icons and an invite where the bot is missing', async () => {
    fake.seedUser({
      id: HELPER,
      username: 'hale',
      guilds: [
        { id: GUILD, name: 'Guild', icon: 'abc123', owner: false, permissions: '0' },
        { id: '997', name: 'Member only', owner: false, permissions: '0' },
        { id: '996', name: 'Own, no bot', owner: true, permissions: '0' },
      ],
    });
    const done = await login('/');
    const cookie = /^service_session=([^;]+)/.exec(
      done.headers.getSetCookie().find((c) => c.startsWith('service_session='))!,
    )![1]!;
    const marker = done.headers.getSetCookie().find((c) => c.startsWith('service_signed_in='))!;
    expect(marker).toMatch(/^service_signed_in=1;/);
    expect(marker).not.toMatch(/HttpOnly/i);
    const body = (await (await api('/auth/me', { cookie })).json()) as {
      guilds: Array<{ id: string; bot: boolean; caps: string[]; iconUrl: string | null; invite: string | null }>;
    };
    expect(body.guilds.map((g) => g.id).sort()).toEqual([GUILD, '996'].sort());
    const staffed = body.guilds.find((g) => g.id === GUILD)!;
    const own = body.guilds.find((g) => g.id === '996')!;
    expect(staffed).toMatchObject({ bot: true, caps: ['tickets.read'], invite: null });
    expect(staffed.iconUrl).toBe(`https://cdn.discordapp.com/icons/${GUILD}/abc123.png?size=64`);
    const invite = new URL(own.invite!);
    expect(own).toMatchObject({ bot: false, caps: [], iconUrl: null });
    expect(`${invite.origin}${invite.pathname}`).toBe(`${fake.origin}/oauth2/authorize`);
    expect(Object.fromEntries(invite.searchParams)).toMatchObject({
      client_id: fake.clientId,
      scope: 'bot applications.commands',
      guild_id: '996',
      disable_guild_select: 'true',
    });
    const out = await api('/auth/logout', { method: 'POST', cookie, headers: { origin: DASH } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().some((c) => /^service_signed_in=;/.test(c))).toBe(true);
  });

  it('/auth/me for a session of 100 guilds asks community once, and not again while the answers are cached', async () => {
    const others = Array.from({ length: 99 }, (_, i) => String(1_200_000_000_000_000_000n + BigInt(i)));
    const guilds = [GUILD, ...others];
    const { id: cookie } = await createSession({
      user: { id: HELPER, username: 'hale', name: 'hale', avatar: null },
      ttlMs: 3_600_000,
      source: 'operator',
      guilds: guilds.map((id) => ({ id, name: `g${id.slice(-3)}`, icon: null, owner: false, permissions: '0' })),
    });
    const [singleBefore, manyBefore] = [accessAsked.length, accessManyAsked.length];
    const me = await api('/auth/me', { cookie });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { guilds: Array<{ id: string; caps: string[]; bot: boolean }> };
    expect(body.guilds).toMatchObject([{ id: GUILD, bot: true, caps: ['tickets.read'] }]);
    expect(accessManyAsked.slice(manyBefore)).toHaveLength(1);
    // the helper's answer for GUILD may be cached from an earlier test: every other guild is asked in that one question
    expect(accessManyAsked.at(-1)?.guilds).toEqual(expect.arrayContaining(others));
    expect(accessAsked.length).toBe(singleBefore);
    // every answer is cached now: a second /auth/me asks nothing
    expect((await api('/auth/me', { cookie })).status).toBe(200);
    expect(accessManyAsked.length).toBe(manyBefore + 1);
    expect(accessAsked.length).toBe(singleBefore);
  });

  it('ignores an absolute next and refuses a state not started in this browser', async () => {
    fake.seedUser({ id: OAUTH_USER, username: 'mira' });
    const done = await login('https://evil.test/steal');
    expect(done.headers.get('location')).toBe(`${DASH}/`);
    const start = await api('/auth/login');
    const authorize = new URL(start.headers.get('location')!);
    const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    await expectProblem(await api(`/auth/callback${back.search}`), 400);
  });

  it('when a kept state cookie and state are replayed with a new code, then the second callback is refused (400)', async () => {
    fake.seedUser({ id: OAUTH_USER, username: 'mira' });
    const start = await api('/auth/login');
    const cookie = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('service_oauth_state='))!
      .split(';')[0]!;
    const authorize = new URL(start.headers.get('location')!);
    const callback = async () => {
      const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
      return api(`/auth/callback${back.search}`, { headers: { cookie } });
    };
    const first = await callback();
    expect(first.status).toBe(302);
    const tokenCalls = fake.callsTo('POST', '/oauth2/token').length;
    const replay = await callback();
    await expectProblem(replay, 400);
    expect(
      replay.headers.getSetCookie().some((c) => c.startsWith('service_session=') && !/^service_session=;/.test(c)),
    ).toBe(false);
    expect(fake.callsTo('POST', '/oauth2/token')).toHaveLength(tokenCalls);
  });

  it('when two callbacks race with the same state, then exactly one signs in', async () => {
    fake.seedUser({ id: OAUTH_USER, username: 'mira' });
    const start = await api('/auth/login');
    const cookie = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('service_oauth_state='))!
      .split(';')[0]!;
    const authorize = new URL(start.headers.get('location')!);
    const backs = await Promise.all(
      [1, 2].map(async () => new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!)),
    );
    const answers = await Promise.all(
      backs.map((back) => api(`/auth/callback${back.search}`, { headers: { cookie } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([302, 400]);
  });
});

describe('request bodies', () => {
  const received = () => echoes.reduce((n, echo) => n + echo.received.length, 0);

  it('when a route that takes no body gets a JSON body, then 400 body_not_allowed and nothing reaches the service', async () => {
    const cookie = await sessionFor(OWNER);
    const before = received();
    const res = await api(`/api/v1/servers/${GUILD}/tickets/blacklist/${HELPER}`, {
      method: 'PUT',
      cookie,
      headers: { origin: DASH, 'content-type': 'application/json' },
      body: '{"__proto__":{"admin":true},"$set":{"blacklist":[]}}',
    });
    const problem = (await expectProblem(res, 400, 'body_not_allowed')) as { errors?: Array<{ field: string }> };
    expect(problem.errors).toEqual([{ field: 'body', message: 'not allowed: this route takes no body' }]);
    expect(received()).toBe(before);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['no Content-Type', null],
  ])(
    'when a body comes as %s, then 415 unsupported_media_type and nothing reaches the service',
    async (_name, type) => {
      const cookie = await sessionFor(OWNER);
      const before = received();
      for (const [method, path] of [
        ['POST', `/api/v1/servers/${GUILD}/cases`],
        ['DELETE', `/api/v1/servers/${GUILD}/tickets/types/${'a'.repeat(24)}`],
      ] as const) {
        const headers = new Headers({ origin: DASH });
        const body = new TextEncoder().encode('{"target":"42","action":"warn","reason":"spam"}');
        if (type) headers.set('content-type', type);
        await expectProblem(await api(path, { method, cookie, headers, body }), 415, 'unsupported_media_type');
      }
      expect(received()).toBe(before);
    },
  );

  it('when a route takes no body and none is sent, or JSON goes to a body route, then the request is proxied', async () => {
    const cookie = await sessionFor(OWNER);
    const empty = await api(`/api/v1/servers/${GUILD}/tickets/types/${'a'.repeat(24)}`, {
      method: 'DELETE',
      cookie,
      headers: { origin: DASH },
    });
    expect(empty.status).toBe(200);
    const merge = await api(`/api/v1/servers/${GUILD}/cases`, {
      method: 'POST',
      cookie,
      headers: { origin: DASH, 'content-type': 'application/merge-patch+json; charset=utf-8' },
      body: '{}',
    });
    expect(merge.status).toBe(200);
  });
});

describe('request guards', () => {
  it('CSRF: refuses a cookie-authenticated write from another origin or without one (403)', async () => {
    const cookie = await sessionFor(OWNER);
    const send = (headers: Record<string, string>) =>
      api(`/api/v1/servers/${GUILD}/cases/1`, {
        method: 'PATCH',
        cookie,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ reason: 'r' }),
      });
    const evil = await expectProblem(await send({ origin: 'http://evil.test' }), 403);
    expect(evil.detail).toMatch(/evil\.test/);
    await expectProblem(await send({}), 403);
    expect((await send({ referer: `${DASH}/guilds/1` })).status).toBe(200);
  });

  it('answers 413 for a declared oversized body', async () => {
    const cookie = await sessionFor(OWNER);
    const res = await api(`/api/v1/servers/${GUILD}/cases`, {
      method: 'POST',
      cookie,
      headers: { origin: DASH, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'x'.repeat(2000) }),
    });
    await expectProblem(res, 413, 'body_too_large');
  });

  it('answers 413 for a streamed (chunked) body past the limit, and streams one under it', async () => {
    const cookie = await sessionFor(OWNER);
    const send = (chunks: string[]) =>
      new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const url = new URL(`${gateway.url}/api/webhooks/payments`);
        const req = httpRequest(
          url,
          {
            method: 'POST',
            headers: { 'content-type': 'application/octet-stream', cookie: `service_session=${cookie}` },
          },
          (res) => {
            let body = '';
            res.on('data', (c) => {
              body += c;
            });
            res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }));
          },
        );
        req.on('error', reject);
        for (const c of chunks) req.write(c);
        req.end();
      });
    const small = await send(['a'.repeat(300), 'b'.repeat(300)]);
    expect(small.status).toBe(200);
    expect((JSON.parse(small.body) as Echoed).body).toBe('a'.repeat(300) + 'b'.repeat(300));
    const big = await send(['a'.repeat(600), 'b'.repeat(600), 'c'.repeat(600)]);
    expect(big.status).toBe(413);
    expect(big.type).toMatch(/application\/problem\+json/);
  });

  it('rate limits per user with 429, Retry-After and RateLimit headers', async () => {
    const cookie = await sessionFor(BUSY);
    let last: Response | undefined;
    for (let i = 0; i < USER_LIMIT; i++) {
      last = await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie });
      expect(last.status).toBe(200);
    }
    expect(last!.headers.get('ratelimit-policy')).toMatch(/"user"/);
    expect(last!.headers.get('ratelimit')).toMatch(/"user"/);
    const limited = await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie });
    await expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await api(`/api/v1/servers/${GUILD}/tickets/settings`, { cookie: await sessionFor(OWNER) });
    expect(other.status).toBe(200);
  });

  it('unknown path -> 404, known path with another method -> 405 with Allow', async () => {
    const cookie = await sessionFor(OWNER);
    await expectProblem(await api('/api/v1/nowhere', { cookie }), 404);
    await expectProblem(await api('/elsewhere'), 404);
    const res = await api(`/api/v1/servers/${GUILD}/structure`, {
      method: 'DELETE',
      cookie,
      headers: { origin: DASH },
    });
    await expectProblem(res, 405);
    expect(res.headers.get('allow')).toBe('GET');
    await expectProblem(await api('/api/v1/servers/abc/structure', { cookie }), 400);
  });

  it('refuses non-canonical ids and numbers in every path parameter of the route table (400 naming it, not proxied)', async () => {
    const samples = ['111111111111111111', '1', '0123456789abcdef01234567', STAFF_ID, 'starter'];
    // Only digit-only parameters (ids, numbers) are checked; the others (uuids, codes, template names) take letters.
    const badFor = (schema: z.ZodType): string[] =>
      schema.safeParse('x').success || schema.safeParse('0123456789abcdef01234567').success
        ? []
        : schema.safeParse('111111111111111111').success
          ? ['0849000000000000000', '18446744073709551616']
          : schema.safeParse('1').success
            ? ['01', '0000000001']
            : [];
    const proxiedBefore = echoes.reduce((n, e) => n + e.received.length, 0) + communitySaw.length;
    let checked = 0;
    for (const route of apiRoutes) {
      const shape = (route.params as z.ZodObject).shape as Record<string, z.ZodType>;
      const valid = Object.fromEntries(
        Object.entries(shape).map(([k, schema]) => [
          k,
          [...samples, ...((schema as { options?: string[] }).options ?? [])].find((v) => schema.safeParse(v).success),
        ]),
      );
      for (const [name, schema] of Object.entries(shape)) {
        for (const bad of badFor(schema)) {
          const path = route.path.replace(/\{(\w+)\}/g, (_, k: string) => (k === name ? bad : String(valid[k])));
          const res = await api(path, { method: route.method.toUpperCase() });
          const body = await expectProblem(res, 400);
          expect({ route: route.id, errors: (body as { errors?: unknown }).errors }).toEqual({
            route: route.id,
            errors: [expect.objectContaining({ field: `params.${name}` })],
          });
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(apiRoutes.length);
    expect(echoes.reduce((n, e) => n + e.received.length, 0) + communitySaw.length).toBe(proxiedBefore);
  });

  it('CORS: credentials for dashboard origins only', async () => {
    const pre = await api(`/api/v1/servers/${GUILD}/cases`, {
      method: 'OPTIONS',
      headers: {
        origin: DASH,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,idempotency-key',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(DASH);
    expect(pre.headers.get('access-control-allow-headers')?.split(',')).toContain('idempotency-key');
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    const evil = await api('/auth/me', { headers: { origin: 'http://evil.test' } });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('documentation', () => {
  it('serves an OpenAPI 3.1 document with every contract route and /auth', async () => {
    const res = await api('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const route of apiRoutes) expect(doc.paths[route.path]?.[route.method]).toBeDefined();
    for (const path of ['/auth/login', '/auth/callback', '/auth/logout', '/auth/me'])
      expect(doc.paths[path]).toBeDefined();
    expect(openApi31Problems(doc)).toEqual([]);
    const broken = { ...doc, paths: { ...doc.paths, '/x/{id}': { get: { responses: { 200: {} } } } } };
    expect(openApi31Problems(broken)).toEqual([
      'GET /x/{id}: path parameter {id} not declared as required',
      'GET /x/{id} 200: no description',
    ]);
  });

  it('serves the docs page and its assets offline', async () => {
    const page = await api('/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('swagger-ui-bundle.js');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const bundle = await api('/api/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    expect((await api('/api/docs/init.js')).status).toBe(200);
  });
});
