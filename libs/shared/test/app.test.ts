import type { Server } from 'node:http';
import {
  bind,
  conflict,
  createApp,
  createLogger,
  createMetricsRegistry,
  defineRoute,
  GuildParams,
  IDENTITY_HEADER,
  mountRoutes,
  parseTrustProxy,
  Snowflake,
} from '@guildhall/shared';
import { identityHeaders, TEST_IDENTITY_SECRET, userIdentity } from '@guildhall/testkit';
import { z } from 'zod';

const logger = createLogger('test', 'silent');
const Thing = z.strictObject({ id: Snowflake, name: z.string() });
const things = defineRoute({
  id: 'putThing',
  method: 'put',
  path: '/api/v1/servers/{guild}/things/{thing}',
  service: 'community',
  auth: 'guild',
  cap: 'packs.manage',
  inSpec: false,
  summary: 'test',
  description: 'test',
  params: z.strictObject({ guild: Snowflake, thing: Snowflake }),
  body: z.strictObject({ name: z.string().min(1).max(10) }),
  success: { status: 200, schema: Thing, description: 'ok' },
  errors: [400, 409],
});
const settings = defineRoute({
  id: 'getThingSettings',
  method: 'get',
  path: '/api/v1/servers/{guild}/things/settings',
  service: 'community',
  auth: 'guild',
  inSpec: false,
  summary: 'test',
  description: 'test',
  params: GuildParams,
  success: { status: 200, schema: z.strictObject({ ok: z.boolean() }), description: 'ok' },
  errors: [],
});

describe('service app factory and route binding', () => {
  let server: Server;
  let base: string;
  let ready = true;

  beforeAll(async () => {
    const app = createApp({
      name: 'test',
      logger,
      metrics: createMetricsRegistry('test'),
      metricsToken: 'metrics-secret',
      trustProxy: false,
      isReady: () => ready,
      mount: (a) =>
        mountRoutes(
          a,
          [
            bind(things, async ({ params, body }) => {
              if (body.name === 'taken') throw conflict('name taken');
              if (body.name === 'bad') return { id: params.thing, name: body.name, extra: 1 } as never;
              return { id: params.thing, name: body.name };
            }),
            bind(settings, async () => ({ ok: true })),
          ],
          { identitySecret: TEST_IDENTITY_SECRET, bodyLimit: '1kb', validateResponses: true, logger },
        ),
    });
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const put = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const admin = () => identityHeaders(userIdentity('10', '1', ['packs.manage']));

  it('serves probes and metrics', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    ready = false;
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer metrics-secreT' } });
    expect(wrong.status).toBe(401);
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer metrics-secret' } });
    expect(await metrics.text()).toContain('http_request_duration_seconds');
  });

  /** Starts a bare app (no routes but `GET /ip`, answering `req.ip`) with the given options; returns its base URL. */
  async function bareApp(metricsToken: string, trustProxy: boolean | number | string) {
    const app = createApp({
      name: 'bare',
      logger,
      metrics: createMetricsRegistry('bare'),
      metricsToken,
      trustProxy,
      isReady: () => true,
      mount: (a) => a.get('/ip', (req, res) => void res.json({ ip: req.ip })),
    });
    const bare = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    return { url: `http://127.0.0.1:${(bare.address() as { port: number }).port}`, close: () => bare.close() };
  }

  it('does not serve /metrics at all without a token configured', async () => {
    const bare = await bareApp('', false);
    try {
      expect((await fetch(`${bare.url}/metrics`)).status).toBe(404);
    } finally {
      bare.close();
    }
  });

  it('trusts X-Forwarded-For only from the hops TRUST_PROXY names (none by default)', async () => {
    expect(parseTrustProxy('')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('10.0.0.0/8, loopback')).toBe('10.0.0.0/8, loopback');
    const ipOf = async (url: string) =>
      ((await (await fetch(`${url}/ip`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).json()) as { ip: string })
        .ip;
    const none = await bareApp('', parseTrustProxy(''));
    const loopback = await bareApp('', parseTrustProxy('loopback'));
    try {
      expect(await ipOf(none.url)).toBe('127.0.0.1');
      expect(await ipOf(loopback.url)).toBe('203.0.113.9');
    } finally {
      none.close();
      loopback.close();
    }
  });

  it('refuses query parameters on a route that declares none, and JSON that is not valid UTF-8', async () => {
    const headers = await identityHeaders(userIdentity('10', '1', ['packs.manage']));
    const query = await fetch(`${base}/api/v1/servers/1/things/settings?limit=5`, { headers });
    expect(query.status).toBe(400);
    expect((await query.json()).errors).toEqual([{ field: 'query.limit', message: 'unknown query parameter' }]);
    expect((await fetch(`${base}/api/v1/servers/1/things/settings`, { headers })).status).toBe(200);
    const bytes = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const invalid = await fetch(`${base}/api/v1/servers/1/things/2`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(await admin()) },
      body: bytes,
    });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).errors[0].field).toBe('body');
  });

  it('answers 401 problem+json without a valid identity token', async () => {
    const res = await put('/api/v1/servers/1/things/2', { name: 'x' });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const forged = await put('/api/v1/servers/1/things/2', { name: 'x' }, { [IDENTITY_HEADER]: 'not-a-jwt' });
    expect(forged.status).toBe(401);
  });

  it('answers 403 for another guild or a missing capability', async () => {
    const other = await put('/api/v1/servers/9/things/2', { name: 'x' }, await admin());
    expect(other.status).toBe(403);
    const noCap = await put(
      '/api/v1/servers/1/things/2',
      { name: 'x' },
      await identityHeaders(userIdentity('10', '1', [])),
    );
    expect(noCap.status).toBe(403);
    expect((await noCap.json()).detail).toContain('packs.manage');
  });

  it('validates params and body, naming the field', async () => {
    const badBody = await put('/api/v1/servers/1/things/2', { name: '' }, await admin());
    expect(badBody.status).toBe(400);
    const problem = await badBody.json();
    expect(problem.errors[0].field).toBe('body.name');
    expect(problem.code).toBe('validation_failed');
    const extra = await put('/api/v1/servers/1/things/2', { name: 'x', $where: '1' }, await admin());
    expect(extra.status).toBe(400);
    const operator = await put('/api/v1/servers/1/things/2', { name: { $gt: '' } }, await admin());
    expect(operator.status).toBe(400);
    const badParam = await put('/api/v1/servers/1/things/abc', { name: 'x' }, await admin());
    expect((await badParam.json()).errors[0].field).toBe('params.thing');
    const malformed = await put('/api/v1/servers/1/things/2', '{"name":', await admin());
    expect(malformed.status).toBe(400);
  });

  it('prefers static segments, maps problems, rejects big bodies and off-contract answers', async () => {
    const s = await fetch(`${base}/api/v1/servers/1/things/settings`, { headers: await admin() });
    expect(await s.json()).toEqual({ ok: true });
    const ok = await put('/api/v1/servers/1/things/2', { name: 'x' }, await admin());
    expect(await ok.json()).toEqual({ id: '2', name: 'x' });
    expect((await put('/api/v1/servers/1/things/2', { name: 'taken' }, await admin())).status).toBe(409);
    expect((await put('/api/v1/servers/1/things/2', { name: 'bad' }, await admin())).status).toBe(500);
    const big = await put('/api/v1/servers/1/things/2', { name: 'x'.repeat(5000) }, await admin());
    expect(big.status).toBe(413);
    const missing = await fetch(`${base}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
  });
});
