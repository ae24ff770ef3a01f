import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { replayFile } from '@guildhall/bridge';
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { MongoClient } from 'mongodb';
import { type Answer, ApiClient } from '../e2e/support/client';
import { Coverage } from '../e2e/support/coverage';
import { writeMessageFlood } from './support/messages';
import { freePort, killAndWait, startNatsServer } from './support/processes';

const SERVICES = ['moderation', 'tickets', 'logs', 'community', 'billing'] as const;
const FLOOD = 5_000;

let sys: System;
let nats: ChildProcess;
let natsPort: number;
let dir: string;
let api: ApiClient;
let mongo: MongoClient;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'guildhall-faults-nats-'));
  natsPort = await freePort();
  nats = await startNatsServer(natsPort, path.join(dir, 'nats'));
  sys = await startSystem({ natsUrl: `nats://127.0.0.1:${natsPort}`, day: 'play' });
  mongo = await MongoClient.connect(sys.stack.mongoUrl);
  await sys.dayPlayer.play();
  api = new ApiClient(sys.gatewayUrl, new Coverage(), {
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  const logs = await waitFor(
    () =>
      api.put(`/api/v1/servers/${sys.guild}/logs`, {
        ignoredChannels: [],
        ignoreBots: false,
        moderationChannel: FIXTURE_IDS.channels.modLog,
      }),
    (r) => r.status === 200,
    20_000,
  );
  expect(logs.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await mongo?.close();
  await sys?.stop();
  if (nats) await killAndWait(nats, 'SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What one round of traffic did: the case created (201) and the ticket panel text set (200), when they succeeded. */
interface Round {
  caseAnswer: Answer;
  panelText: string;
  settingsAnswer: Answer;
}

/** One round: a warn case and a ticket settings change through the gateway, sent at once. */
async function round(label: string): Promise<Round> {
  const panelText = `Open a ticket (${label})`;
  const [caseAnswer, settingsAnswer] = await Promise.all([
    api.post(`/api/v1/servers/${sys.guild}/cases`, {
      target: USERS.moderator,
      action: 'warn',
      reason: `fault test ${label}`,
    }),
    api.patch(`/api/v1/servers/${sys.guild}/tickets/settings`, { panelText }),
  ]);
  return { caseAnswer, panelText, settingsAnswer };
}

async function readiness(): Promise<number[]> {
  return Promise.all(SERVICES.map(async (s) => (await fetch(`${sys.stack.urls[s]}/readyz`)).status));
}

it('loses no event and recovers without restarts when NATS is killed and restarted during traffic', async () => {
  const pids = Object.fromEntries(SERVICES.map((s) => [s, sys.stack.processes[s].pid]));
  const floodBefore = path.join(dir, 'before.ndjson');
  const floodAfter = path.join(dir, 'after.ndjson');
  const now = Date.now();
  const ids = [
    ...(await writeMessageFlood(floodBefore, FLOOD, now - 60_000)),
    ...(await writeMessageFlood(floodAfter, FLOOD, now)),
  ];
  const rounds: Round[] = [];
  for (let i = 0; i < 3; i++) rounds.push(await round(`before ${i}`));
  const before = await replayFile({ file: floodBefore, natsUrl: sys.natsUrl, namespace: sys.namespace });
  expect(before).toMatchObject({ published: FLOOD, failed: 0 });

  // The gateway's access answer (kept ACCESS_CACHE_MS) must be fresh when NATS goes: the day's structure dispatches
  // community may still be applying drop it (`cache.invalidate.access`), and then every outage request answers 503.
  expect((await api.get(`/api/v1/servers/${sys.guild}/tickets/settings`)).status).toBe(200);
  await killAndWait(nats, 'SIGKILL');
  const during = Promise.all(Array.from({ length: 4 }, (_, i) => round(`during ${i}`)));
  const notReady = await waitFor(readiness, (statuses) => statuses.every((s) => s === 503), 10_000);
  expect(notReady).toEqual(SERVICES.map(() => 503));
  const outage = await during;
  // a case needs community's answer on the role hierarchy (RPC.hierarchy over NATS): refused while NATS is down,
  // never allowed by default (503: the check cannot be made, or the access answer is not cached)
  expect(outage.map((r) => r.caseAnswer.status)).toEqual(outage.map(() => 503));
  rounds.push(...outage);

  nats = await startNatsServer(natsPort, path.join(dir, 'nats'));
  const ready = await waitFor(readiness, (statuses) => statuses.every((s) => s === 200), 30_000);
  expect(ready).toEqual(SERVICES.map(() => 200));
  for (const s of SERVICES) {
    expect(sys.stack.processes[s].pid).toBe(pids[s]);
    expect(sys.stack.processes[s].exitCode).toBeNull();
  }
  for (let i = 0; i < 3; i++) rounds.push(await round(`after ${i}`));
  const after = await replayFile({ file: floodAfter, natsUrl: sys.natsUrl, namespace: sys.namespace });
  expect(after).toMatchObject({ published: FLOOD, failed: 0 });

  const cases = rounds.filter((r) => r.caseAnswer.status === 201).map((r) => r.caseAnswer.body.number as number);
  const panels = rounds.filter((r) => r.settingsAnswer.status === 200).map((r) => r.panelText);
  expect(cases.length).toBeGreaterThanOrEqual(6);
  expect(panels.length).toBeGreaterThanOrEqual(6);
  for (const r of rounds) {
    expect([201, 503]).toContain(r.caseAnswer.status);
    expect([200, 503]).toContain(r.settingsAnswer.status);
  }

  const record = await waitFor(
    () => api.get(`/api/v1/servers/${sys.guild}/members/${USERS.moderator}`),
    (r) =>
      r.status === 200 &&
      cases.every((n) =>
        r.body.cases.some((c: { number: number; logMessage: string | null }) => c.number === n && c.logMessage),
      ),
    30_000,
  );
  for (const n of cases) {
    expect(record.body.cases.find((c: { number: number }) => c.number === n)).toMatchObject({
      logChannel: FIXTURE_IDS.channels.modLog,
      logMessage: expect.any(String),
    });
  }
  const journaled = await waitFor(
    async () => {
      const page = await api.get(`/api/v1/servers/${sys.guild}/journal?kind=settings_update&limit=100`);
      return (
        page.body.events as Array<{ data: { area?: string; changes?: Array<{ field: string; after: unknown }> } }>
      )
        .filter((e) => e.data.area === 'tickets')
        .flatMap((e) => e.data.changes ?? [])
        .filter((c) => c.field === 'panelText')
        .map((c) => c.after);
    },
    (seen) => panels.every((p) => seen.includes(p)),
    30_000,
  );
  expect(journaled).toEqual(expect.arrayContaining(panels));

  const messages = mongo.db(`e2e${sys.namespace}_logs`).collection<{ _id: string }>('messages');
  const missing = await waitFor(
    async () => {
      const stored = new Set((await messages.find({}, { projection: { _id: 1 } }).toArray()).map((m) => m._id));
      return ids.filter((id) => !stored.has(id)).length;
    },
    (n) => n === 0,
    60_000,
  );
  expect(missing).toBe(0);
  for (const svc of ['moderation', 'tickets']) {
    const unsent = await mongo.db(`e2e${sys.namespace}_${svc}`).collection('outbox').countDocuments({ sentAt: null });
    expect(unsent).toBe(0);
  }
}, 180_000);
