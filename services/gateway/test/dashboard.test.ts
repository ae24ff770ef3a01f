/**
 * The gateway's serving of the built dashboard (dashboardRouter) and its Content-Security-Policy (dashboardCsp), on a
 * real express app over loopback HTTP with a dashboard build in a temporary folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import helmet from 'helmet';
import { dashboardCsp, dashboardRouter } from '../src/dashboard';
import { close, listen } from './helpers';

let dir: string;
let server: Server;
let url: string;
const INDEX = '<!doctype html><html lang="en"><title>Guildhall</title><div id="root"></div></html>';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'dashboard-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), INDEX);
  writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const app = express();
  app.use(helmet());
  app.use(dashboardCsp('http://cdn.test:9000/base'));
  app.get('/api/thing', (_req, res) => {
    res.json({ api: true });
  });
  app.use(dashboardRouter(dir));
  app.use((_req, res) => {
    res.status(404).json({ fallthrough: true });
  });
  server = createServer(app);
  url = await listen(server);
});

afterAll(async () => {
  await close(server);
  rmSync(dir, { recursive: true, force: true });
});

const html = { accept: 'text/html,application/xhtml+xml' };

describe('dashboard serving', () => {
  it('serves hashed assets with a one-year immutable cache and other files revalidated', async () => {
    const asset = await fetch(`${url}/assets/index-AbC123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await asset.text()).toBe('console.log(1)');
    const icon = await fetch(`${url}/favicon.svg`);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers client routes with index.html (no-cache) and leaves the API, auth and probes alone', async () => {
    for (const route of ['/', '/guilds/1/cases', '/guilds/1/cases/7?x=1']) {
      const page = await fetch(`${url}${route}`, { headers: html });
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(await page.text()).toBe(INDEX);
    }
    expect(await (await fetch(`${url}/api/thing`, { headers: html })).json()).toEqual({ api: true });
    for (const reserved of ['/api/nope', '/auth/whatever', '/healthz', '/readyz', '/metrics']) {
      const res = await fetch(`${url}${reserved}`, { headers: html });
      expect([reserved, res.status]).toEqual([reserved, 404]);
    }
    // A missing asset or a non-HTML request is not answered with the page.
    expect((await fetch(`${url}/assets/gone.js`)).status).toBe(404);
    expect((await fetch(`${url}/guilds/1`, { headers: { accept: 'application/json' } })).status).toBe(404);
    expect((await fetch(`${url}/guilds/1`, { method: 'POST', headers: html })).status).toBe(404);
  });

  it('allows images from the platform CDN origin only, scripts and connections from itself', async () => {
    const csp = (await fetch(`${url}/`, { headers: html })).headers.get('content-security-policy')!;
    const directives = Object.fromEntries(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives['img-src']).toBe("'self' data: http://cdn.test:9000");
    expect(directives['script-src']).toBe("'self'");
    expect(directives['connect-src']).toBe("'self'");
    expect(directives['default-src']).toBe("'self'");
  });

  it('serves nothing without a build', async () => {
    const app = express();
    app.use(dashboardRouter(path.join(dir, 'missing')));
    app.use((_req, res) => {
      res.status(404).end();
    });
    const empty = createServer(app);
    const base = await listen(empty);
    expect((await fetch(`${base}/`, { headers: html })).status).toBe(404);
    await close(empty);
  });
});
