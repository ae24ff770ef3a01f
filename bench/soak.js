/**
 * `npm run soak`: boots the whole system and runs mixed traffic through the gateway for `--minutes` (default 10):
 * dashboard reads (ticket settings, member records, journal pages, message searches, appeals), case creates (warns
 * on fixture members, with idempotency keys) and platform dispatch replay (the demo guild's day as a bot receives
 * it, recorded from a simulator driven through a day ending now, plus fresh MESSAGE_CREATE batches). Every `--every` seconds it prints the RSS of each process and the error counts; at the
 * end it reports memory growth per process (first minute vs last minute, MB) and errors per kind, and writes
 * bench/results/soak.json. Not part of CI. Exit code 1 when any request failed.
 *
 * Options: --minutes 10  --every 30  --readers 6 (concurrent readers)  --log
 */
const os = require('node:os');
const path = require('node:path');
const { writeFileSync, mkdtempSync, rmSync } = require('node:fs');
const { parseArgs } = require('node:util');
const { replayFile } = require('../services/bridge/dist');
const { BRIDGE_INTENTS } = require('../libs/shared/dist');
const { FIXTURE_IDS, dayNdjson, recentDayStart, recordGuildDay } = require('../libs/platform-simulator/dist');
const { startBenchSystem } = require('./lib/system');
const { rssMb, percentile } = require('./lib/measure');
const { messageCreateNdjson, fixturePeople, CHANNELS } = require('./lib/seed');

const PROCESSES = ['moderation', 'tickets', 'logs', 'community', 'billing', 'gateway'];
const RESULTS_FILE = path.join(__dirname, 'results/soak.json');

function options() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      every: { type: 'string', default: '30' },
      readers: { type: 'string', default: '6' },
      log: { type: 'boolean', default: false },
    },
  });
  return {
    minutes: Number(values.minutes),
    every: Number(values.every),
    readers: Number(values.readers),
    log: values.log,
  };
}

const started = performance.now();
function progress(text) {
  process.stdout.write(`[soak ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${text}\n`);
}

/** Per-kind request counters: ok, failed (non-2xx or network error) with the first few failures kept. */
class Counters {
  constructor() {
    this.kinds = {};
  }

  record(kind, ok, ms, detail) {
    this.kinds[kind] ??= { ok: 0, failed: 0, times: [], samples: [] };
    const k = this.kinds[kind];
    if (ok) k.ok++;
    else {
      k.failed++;
      if (k.samples.length < 5) k.samples.push(detail);
    }
    if (k.times.length < 100_000) k.times.push(ms);
  }

  summary() {
    return Object.fromEntries(
      Object.entries(this.kinds).map(([kind, k]) => [
        kind,
        { ok: k.ok, failed: k.failed, p50: percentile(k.times, 50), p95: percentile(k.times, 95), failures: k.samples },
      ]),
    );
  }

  failed() {
    return Object.values(this.kinds).reduce((s, k) => s + k.failed, 0);
  }
}

async function main() {
  const opts = options();
  const deadline = Date.now() + opts.minutes * 60_000;
  progress(`starting the system for ${opts.minutes} min of mixed traffic`);
  const sys = await startBenchSystem({ log: opts.log ? (n, l) => process.stdout.write(`[${n}] ${l}\n`) : undefined });
  const counters = new Counters();
  const memory = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'guildhall-soak-'));
  let exitCode = 0;
  try {
    const guild = sys.guild;
    const cookie = await sys.login(FIXTURE_IDS.owner);
    const fixture = fixturePeople(sys.fake);
    const people = fixture
      .slice(3)
      .map((p) => p.id)
      .filter((id) => id !== sys.fake.botUserId && id !== FIXTURE_IDS.musicBot);
    const base = `${sys.gatewayUrl}/api/v1/servers/${guild}`;
    const headers = { cookie: `service_session=${cookie}` };
    const call = async (kind, url, init = {}) => {
      const t0 = performance.now();
      try {
        const res = await fetch(url, { ...init, headers: { ...headers, ...init.headers } });
        const body = await res.text();
        counters.record(kind, res.ok, performance.now() - t0, `${res.status} ${body.slice(0, 300)}`);
      } catch (err) {
        counters.record(kind, false, performance.now() - t0, String(err));
      }
    };
    const words = ['the', 'game', 'event', 'raid', 'w1', '"the game"'];
    const reads = [
      () => call('GET tickets/settings', `${base}/tickets/settings`),
      (i) => call('GET members/{user}', `${base}/members/${people[i % people.length]}`),
      (i) => call('GET journal', `${base}/journal${i % 3 ? '' : `?target=${people[i % people.length]}`}`),
      (i) => call('GET messages?q', `${base}/messages?q=${encodeURIComponent(words[i % words.length])}`),
      (i) => call('GET messages', `${base}/messages?channel=${CHANNELS[i % CHANNELS.length]}`),
      () => call('GET appeals', `${base}/appeals`),
    ];

    const readers = Array.from({ length: opts.readers }, async (_, r) => {
      for (let i = r; Date.now() < deadline; i += opts.readers) await reads[i % reads.length](i);
    });

    const writer = (async () => {
      for (let i = 0; Date.now() < deadline; i++) {
        await call('POST cases (warn)', `${base}/cases`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            origin: sys.dashboardOrigin,
            'idempotency-key': `soak-${Date.now()}-${i}`,
          },
          body: JSON.stringify({ action: 'warn', target: people[i % people.length], reason: `soak test warning ${i}` }),
        });
        await new Promise((r) => setTimeout(r, 500));
      }
    })();

    const replayer = (async () => {
      const dayFile = path.join(dir, 'day.ndjson');
      writeFileSync(dayFile, dayNdjson((await recordGuildDay({ dayStart: recentDayStart() })).payloads));
      for (let round = 0; Date.now() < deadline; round++) {
        const t0 = performance.now();
        const file = round % 2 === 0 ? dayFile : path.join(dir, `messages-${round}.ndjson`);
        if (round % 2) {
          const count = 5000;
          const { text } = messageCreateNdjson({
            count,
            marker: `soak${round}`,
            startMs: Date.now() - count,
            firstSeq: 10_000_000 + round * count,
            seed: 100 + round,
            people: fixture,
            guildCreate: sys.fake.guildCreate(sys.guild, BRIDGE_INTENTS),
          });
          writeFileSync(file, text);
        }
        const summary = await replayFile({ file, natsUrl: sys.natsUrl, namespace: sys.namespace });
        counters.record('replay dispatches', summary.failed === 0, performance.now() - t0, `${summary.failed} failed`);
        if (round % 2) rmSync(file, { force: true });
        await new Promise((r) => setTimeout(r, 5000));
      }
    })();

    const sampler = (async () => {
      while (Date.now() < deadline) {
        const sample = { at: Date.now(), rss: {} };
        for (const n of PROCESSES) sample.rss[n] = rssMb(sys.stack.processes[n].pid);
        if (sys.mongoPid) sample.rss.mongo = rssMb(sys.mongoPid);
        memory.push(sample);
        const ok = Object.values(counters.kinds).reduce((s, k) => s + k.ok, 0);
        progress(
          `${Object.entries(sample.rss)
            .map(([n, mb]) => `${n} ${mb?.toFixed(0)} MB`)
            .join(', ')} | ${ok} ok, ${counters.failed()} failed`,
        );
        await new Promise((r) => setTimeout(r, opts.every * 1000));
      }
    })();

    await Promise.all([...readers, writer, replayer, sampler]);
  } catch (err) {
    exitCode = 1;
    process.stderr.write(`soak failed: ${err.stack ?? err}\n`);
  } finally {
    await sys.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const windowMs = Math.min(60_000, (opts.minutes * 60_000) / 4);
  const t0 = memory[0]?.at ?? 0;
  const tEnd = memory.at(-1)?.at ?? 0;
  const avg = (name, from, to) => {
    const vals = memory.filter((m) => m.at >= from && m.at <= to && m.rss[name] != null).map((m) => m.rss[name]);
    return vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : Number.NaN;
  };
  const growth = {};
  process.stdout.write('\nProcess      first MB   last MB   growth MB   peak MB\n');
  for (const n of [...PROCESSES, ...(memory[0]?.rss.mongo != null ? ['mongo'] : [])]) {
    const first = avg(n, t0, t0 + windowMs);
    const last = avg(n, tEnd - windowMs, tEnd);
    const peak = Math.max(...memory.map((m) => m.rss[n] ?? 0));
    growth[n] = { first, last, growth: last - first, peak };
    process.stdout.write(
      `${n.padEnd(11)} ${first.toFixed(0).padStart(9)} ${last.toFixed(0).padStart(9)} ${(last - first).toFixed(0).padStart(11)} ${peak.toFixed(0).padStart(9)}\n`,
    );
  }
  const summary = counters.summary();
  process.stdout.write('\nRequests                 ok    failed    p50 ms    p95 ms\n');
  for (const [kind, k] of Object.entries(summary)) {
    process.stdout.write(
      `${kind.padEnd(22)} ${String(k.ok).padStart(6)} ${String(k.failed).padStart(9)} ${k.p50.toFixed(1).padStart(9)} ${k.p95.toFixed(1).padStart(9)}\n`,
    );
    for (const f of k.failures) process.stdout.write(`    e.g. ${f}\n`);
  }
  if (counters.failed() > 0) exitCode = 1;
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ finishedAt: new Date().toISOString(), options: opts, memoryGrowth: growth, requests: summary, memory }, null, 2)}\n`,
  );
  process.stdout.write(`\nwritten ${path.relative(process.cwd(), RESULTS_FILE)}\n`);
  process.exit(exitCode);
}

main();
