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
  Snowflake,
} from '@guildhall/shared';
import { identityHeaders, TEST_IDENTITY_SECRET, userIdentity } from '@guildhall/shared/testing';
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
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('http_request_duration_seconds');
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
