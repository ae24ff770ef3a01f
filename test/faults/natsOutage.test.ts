/**
 * Fault: NATS is stopped for 30 s while members keep chatting (large messages, through the simulator's REST routes,
 * so the simulator gateway sends their MESSAGE_CREATE to the bridge). The bridge process holds at most
 * BRIDGE_BUFFER_MAX dispatches, pauses its shard, and its resident memory stays within a bound far below what the
 * outage's traffic would take if it were buffered; once NATS is back the bridge RESUMEs, the simulator replays what the
 * paused shard did not take, and every message of the run is in the PLATFORM stream exactly once.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { createLogger, EventBus } from '@guildhall/shared';
import { testNamespace, waitFor } from '@guildhall/testkit';
import { freePort, killAndWait, startNatsServer } from './support/processes';

const ROOT = path.resolve(__dirname, '../..');
const BUFFER_MAX = 1000;
const OUTAGE_MS = 30_000;
/** Messages posted per second during the outage. */
const RATE = 200;
/** What the bridge's resident memory may grow by over its level when the outage starts. */
const RSS_HEADROOM = 48 * 1024 * 1024;
const METRICS_TOKEN = 'faults-nats-outage-metrics';
/**
 * Text of `n` characters of 2 bytes each, in UTF-8 and in V8 (outside Latin-1): a message of 2000 characters of
 * content and a 4000-character embed is ~12 KB on the wire and in memory.
 */
const filler = (n: number) => 'ł'.repeat(n);
const MESSAGE_BYTES = 12_000;

const seed = sampleGuild();
const namespace = testNamespace();
let dir: string;
let natsPort: number;
let nats: ChildProcess;
let fake: FakePlatform;
let bridge: ChildProcess;
let bridgeUrl: string;
let bus: EventBus;
let bridgeLog = '';

/** The bridge's `/metrics` values that matter here: resident memory, dispatches waiting, pauses so far. */
async function bridgeMetrics(): Promise<{ rss: number; buffered: number; pauses: number }> {
  const text = await (
    await fetch(`${bridgeUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    rss: value('process_resident_memory_bytes'),
    buffered: value('bridge_buffered_dispatches'),
    pauses: value('bridge_backpressure_pauses_total'),
  };
}

/** Ids of every MESSAGE_CREATE in the namespace's PLATFORM stream (read with an ordered consumer). */
async function storedMessageIds(): Promise<string[]> {
  const name = bus.streamName('PLATFORM');
  const last = (await bus.jsm.streams.info(name)).state.last_seq;
  const ids: string[] = [];
  if (last === 0) return ids;
  const consumer = await bus.js.consumers.get(name);
  const messages = await consumer.consume();
  for await (const m of messages) {
    const payload = m.json<{ t: string; d: { id?: string } }>();
    if (payload.t === 'MESSAGE_CREATE' && payload.d.id) ids.push(payload.d.id);
    if (m.seq >= last) break;
  }
  return ids;
}

/** Posts message `label` as the sample member in #general; resolves its id. */
async function post(label: string): Promise<string> {
  const message = await fake.actAsUser(seed.ids.member).sendMessage(seed.ids.general, {
    content: `${label} ${filler(2000 - label.length - 1)}`,
    embeds: [{ title: label, description: filler(4000) }],
  });
  return message.id;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'guildhall-faults-nats-outage-'));
  natsPort = await freePort();
  nats = await startNatsServer(natsPort, path.join(dir, 'nats'));
  fake = await startFakePlatform({ gateway: { replayBufferSize: 100_000 } });
  fake.seedGuild(seed);
  const port = await freePort();
  bridgeUrl = `http://127.0.0.1:${port}`;
  bridge = spawn(process.execPath, [path.join(ROOT, 'services/bridge/dist/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      METRICS_TOKEN,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      NATS_NAMESPACE: namespace,
      PLATFORM_API_URL: fake.url,
      PLATFORM_BOT_TOKEN: 'faults-bot-token',
      BRIDGE_BUFFER_MAX: String(BUFFER_MAX),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    bridgeLog = `${bridgeLog}${chunk}`.slice(-20_000);
  };
  bridge.stdout!.on('data', keep);
  bridge.stderr!.on('data', keep);
  bus = await EventBus.connect({
    url: `nats://127.0.0.1:${natsPort}`,
    name: 'faults-nats-outage',
    namespace,
    logger: createLogger('faults-nats-outage', 'silent'),
  });
  const ready = await waitFor(
    () =>
      fetch(`${bridgeUrl}/readyz`).then(
        (r) => r.status,
        () => 0,
      ),
    (status) => status === 200 || bridge.exitCode !== null,
    30_000,
  );
  expect({ ready, bridgeLog }).toEqual({ ready: 200, bridgeLog: expect.any(String) });
}, 60_000);

afterAll(async () => {
  await bus?.close();
  if (bridge && bridge.exitCode === null) await killAndWait(bridge, 'SIGTERM');
  await fake?.close();
  if (nats) await killAndWait(nats, 'SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The scenario: NATS killed, `RATE` messages a second for `OUTAGE_MS` (the outage is the scenario, not a wait), NATS
 * started again on the same store, 100 more messages. Resolves how many bytes of messages the outage carried.
 */
async function outage(sent: string[], natsBack: () => void): Promise<number> {
  await killAndWait(nats, 'SIGKILL');
  const ends = Date.now() + OUTAGE_MS;
  let bytes = 0;
  for (let second = 0; Date.now() < ends; second++) {
    const tick = Date.now();
    for (let i = 0; i < RATE; i++) {
      sent.push(await post(`during ${second}.${i}`));
      bytes += MESSAGE_BYTES;
    }
    // Paces the load at RATE messages a second for the outage (the scenario, not a wait for a condition).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - tick))));
  }
  natsBack();
  nats = await startNatsServer(natsPort, path.join(dir, 'nats'));
  for (let i = 0; i < 100; i++) sent.push(await post(`after ${i}`));
  return bytes;
}

/** Waits until the stream holds as many messages as were sent; on timeout, names the missing ranges. */
async function allStored(sent: string[]): Promise<string[]> {
  try {
    return await waitFor(storedMessageIds, (ids) => ids.length >= sent.length, 60_000);
  } catch (err) {
    const have = new Set(await storedMessageIds());
    const missing = sent.flatMap((id, i) => (have.has(id) ? [] : [i]));
    const starts = missing.filter((i, k) => k === 0 || missing[k - 1] !== i - 1);
    throw new Error(
      `${(err as Error).message}\n${missing.length} of ${sent.length} missing, runs starting at message ${starts.join(', ')}\n` +
        `bridge log:\n${bridgeLog.slice(-4000)}`,
    );
  }
}

it('keeps the bridge within its buffer and memory bound while NATS is down for 30 s, and loses nothing', async () => {
  const sent: string[] = [];
  for (let i = 0; i < 100; i++) sent.push(await post(`before ${i}`));
  await waitFor(storedMessageIds, (ids) => ids.length === sent.length, 30_000);

  const samples: Array<{ rss: number; buffered: number; pauses: number }> = [];
  const sample = async () => samples.push(await bridgeMetrics());
  await sample();
  const rssAtOutage = samples[0]!.rss;
  const sampler = setInterval(() => void sample().catch(() => undefined), 250);
  let outageBytes: number;
  let stored: string[];
  let outageSamples = 0;
  try {
    outageBytes = await outage(sent, () => {
      outageSamples = samples.length;
    });
    stored = await allStored(sent);
  } finally {
    clearInterval(sampler);
  }
  await sample();

  expect(bridge.exitCode).toBeNull();
  const peak = Math.max(...samples.slice(0, outageSamples).map((s) => s.rss));
  const recoveryPeak = Math.max(...samples.slice(outageSamples).map((s) => s.rss));
  const maxBuffered = Math.max(...samples.map((s) => s.buffered));
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `bridge RSS ${mb(rssAtOutage)} when NATS stopped, peak ${mb(peak)} while it was down (bound ` +
      `${mb(rssAtOutage + RSS_HEADROOM)}), ${mb(recoveryPeak)} while the backlog was replayed; ` +
      `outage traffic ${mb(outageBytes)}; at most ${maxBuffered} dispatches buffered (BRIDGE_BUFFER_MAX ${BUFFER_MAX}); ` +
      `${samples.at(-1)!.pauses} pauses; ${stored.length} of ${sent.length} messages stored`,
  );
  // The bound means something: the outage's messages alone, were they all buffered, would exceed it.
  expect(outageBytes).toBeGreaterThan(RSS_HEADROOM);
  expect(peak).toBeLessThan(rssAtOutage + RSS_HEADROOM);
  expect(maxBuffered).toBeLessThanOrEqual(BUFFER_MAX);
  expect(samples.at(-1)!.pauses).toBeGreaterThanOrEqual(1);
  expect(stored).toHaveLength(sent.length);
  expect(new Set(stored)).toEqual(new Set(sent));
}, 150_000);
