import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { ApiClient } from '../e2e/support/client';
import { Coverage } from '../e2e/support/coverage';
import { freePort, killAndWait } from './support/processes';

// biome-ignore lint/suspicious/noExplicitAny: scripts/stack.js is plain JavaScript
const { startEmbeddedMongo } = require('../../scripts/stack.js') as { startEmbeddedMongo: (o: object) => Promise<any> };

const SERVICES = ['moderation', 'tickets', 'logs', 'community', 'billing', 'gateway'] as const;
/** Cases each writer creates at most (a member record lists 100). */
const PER_WRITER = 60;

let sys: System;
let mongoProcess: ChildProcess;
let mongoPort: number;
let dir: string;
let api: ApiClient;

/** The embedded MongoDB CLI on `mongoPort`, persisting to `dir/mongo`. */
async function startMongo(): Promise<{ url: string; child: ChildProcess }> {
  return startEmbeddedMongo({ port: mongoPort, dataDir: path.join(dir, 'mongo') });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'guildhall-faults-mongo-'));
  mongoPort = await freePort();
  const mongo = await startMongo();
  mongoProcess = mongo.child;
  sys = await startSystem({ mongoUrl: mongo.url, day: 'play' });
  await sys.dayPlayer.play();
  api = new ApiClient(sys.gatewayUrl, new Coverage(), {
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  if (mongoProcess) await killAndWait(mongoProcess, 'SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What one writer saw: the cases answered 201 (number and reason) and the status of every other answer. */
interface Written {
  target: string;
  acknowledged: Array<{ number: number; reason: string }>;
  failures: number[];
}

/**
 * Creates warn cases against `target` one after another until `stop()` returns true or `PER_WRITER` were sent,
 * recording which were acknowledged.
 */
async function writer(out: Written, stop: () => boolean): Promise<Written> {
  const { target } = out;
  for (let i = 0; i < PER_WRITER && !stop(); i++) {
    const reason = `crash test ${target} #${i}`;
    const answer = await api.post(`/api/v1/servers/${sys.guild}/cases`, { target, action: 'warn', reason });
    if (answer.status === 201) out.acknowledged.push({ number: answer.body.number, reason });
    else out.failures.push(answer.status);
  }
  return out;
}

it('keeps every acknowledged case when the database is killed -9 mid-write, and services reconnect by themselves', async () => {
  const pids = Object.fromEntries(SERVICES.map((s) => [s, sys.stack.processes[s].pid]));
  // Members below the bot's role (the admin's role is above it: a case about them is refused by the hierarchy).
  const targets = [sys.day.nickname.user, USERS.moderator, sys.day.spammer, sys.day.ticketOpener];
  let stopping = false;
  const seen: Written[] = targets.map((target) => ({ target, acknowledged: [], failures: [] }));
  const writers: Array<Promise<Written>> = seen.map((out) => writer(out, () => stopping));

  // killed once 20 cases were acknowledged (counting stored documents instead could kill it before the 20th answer)
  await waitFor(
    async () => seen.reduce((n, w) => n + w.acknowledged.length, 0),
    (n) => n >= 20,
    30_000,
  );
  await killAndWait(mongoProcess, 'SIGKILL');

  const notReady = await waitFor(
    async () => (await fetch(`${sys.stack.urls.moderation}/readyz`)).status,
    (status) => status === 503,
    15_000,
  );
  expect(notReady).toBe(503);
  // While it is down, every request that needs MongoDB answers a prompt 503 problem+json with Retry-After.
  const probes: Array<[string, string, unknown?]> = [
    ['POST', `/api/v1/servers/${sys.guild}/cases`, { target: USERS.moderator, action: 'warn', reason: 'down' }],
    ['GET', `/api/v1/servers/${sys.guild}/tickets/settings`],
    ['GET', `/api/v1/servers/${sys.guild}/logs`],
    ['GET', `/api/v1/servers/${sys.guild}/moderation/settings`],
    ['GET', `/api/v1/servers/${sys.guild}/packs`],
  ];
  for (const [method, path, body] of probes) {
    const started = Date.now();
    const answer = method === 'GET' ? await api.get(path) : await api.post(path, body);
    const took = Date.now() - started;
    // prompt: MONGO_TIMEOUT_MS (1.5 s) waiting for a server, plus room for a loaded machine; a request that hung
    // instead would answer only at the gateway's 30 s upstream timeout
    expect({ path, status: answer.status, prompt: took < 5_000 }).toEqual({ path, status: 503, prompt: true });
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  mongoProcess = (await startMongo()).child;

  const ready = await waitFor(
    () =>
      Promise.all(
        SERVICES.map(
          async (s) => (await fetch(`${s === 'gateway' ? sys.gatewayUrl : sys.stack.urls[s]}/readyz`)).status,
        ),
      ),
    (statuses) => statuses.every((s) => s === 200),
    45_000,
  );
  expect(ready).toEqual(SERVICES.map(() => 200));
  const afterRestart = await waitFor(
    () => api.post(`/api/v1/servers/${sys.guild}/cases`, { target: USERS.moderator, action: 'warn', reason: 'after' }),
    (r) => r.status === 201,
    30_000,
  );
  stopping = true;
  const written = await Promise.all(writers);
  for (const s of SERVICES) {
    expect(sys.stack.processes[s].pid).toBe(pids[s]);
    expect(sys.stack.processes[s].exitCode).toBeNull();
  }

  const acknowledged = written.flatMap((w) => w.acknowledged);
  expect(acknowledged.length).toBeGreaterThanOrEqual(20);
  for (const w of written) for (const status of w.failures) expect(status).toBeGreaterThanOrEqual(500);
  for (const w of written) {
    const record = await api.get(`/api/v1/servers/${sys.guild}/members/${w.target}`);
    expect(record.status).toBe(200);
    const stored = new Map(
      (record.body.cases as Array<{ number: number; reason: string; target: string }>).map((c) => [c.number, c]),
    );
    for (const ack of w.acknowledged) {
      expect(stored.get(ack.number)).toMatchObject({ number: ack.number, reason: ack.reason, target: w.target });
    }
  }
  const numbers = [...acknowledged.map((a) => a.number), afterRestart.body.number as number];
  expect(new Set(numbers).size).toBe(numbers.length);
}, 180_000);
