/**
 * `node bench/ingest.js [--stored 10000] [--ingest 10000] [--rounds 3] [--profile] [--out <dir>] [--env K=V,...]`
 * (build first): the ingest section of `npm run bench` alone, for measuring one lever at a time. Boots the bench
 * system and seeds `--stored` messages; then, `--rounds` times, bulk-inserts `--ingest` messages into the same
 * collection (timed: the store's ceiling, measured right before) and publishes `--ingest` fresh MESSAGE_CREATE, waiting
 * until all are stored and the last is searchable; prints each round's two rates, their ratio, the load average and
 * the CPU time each process used per 1,000 messages (a figure the machine's other load moves much less than rates). `--env` adds variables to the
 * services' environment (e.g. `INGEST_BATCH=1000`). With `--profile` the logs and embedded MongoDB processes run
 * under the CPU profiler (bench/lib/cpuProfile.js) and their self time per package and function is printed.
 */
const { mkdirSync, mkdtempSync, readdirSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { MongoClient } = require('mongodb');
const { startBenchSystem, envOption } = require('./lib/system');
const { fixturePeople, seedMessages } = require('./lib/seed');
const { measureIngest } = require('./lib/ingest');
const { cpuMs } = require('./lib/measure');

const SERVICES = ['moderation', 'tickets', 'logs', 'community', 'billing', 'gateway'];

/** `{name: pid}` of the processes whose CPU time is counted: the services, the embedded MongoDB and the NATS server. */
function pidsOf(sys) {
  const pids = Object.fromEntries(SERVICES.map((n) => [n, sys.stack.processes[n].pid]));
  if (sys.mongoPid) pids.mongo = sys.mongoPid;
  const nats = spawnSync('pgrep', ['-x', 'nats-server'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  if (nats) pids.nats = Number(nats);
  return pids;
}

/**
 * CPU time each process (and this one, `bench`: the publisher) uses while `work()` runs, in ms per 1,000 of `count`
 * messages. The NATS server is shared with anything else on the machine, so its figure includes their traffic.
 */
async function cpuPerThousand(sys, count, work) {
  const pids = pidsOf(sys);
  const before = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuMs(pid)]));
  const self = process.cpuUsage();
  const result = await work();
  const used = {};
  for (const [n, pid] of Object.entries(pids)) used[n] = ((cpuMs(pid) - before[n]) * 1000) / count;
  const { user, system } = process.cpuUsage(self);
  used.bench = (user + system) / count;
  return { result, used };
}

const perThousand = (used) =>
  Object.entries(used)
    .map(([n, ms]) => `${n} ${ms.toFixed(0)}`)
    .join(', ');
const { summarise } = require('./lib/profileSummary');

function say(text) {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)} load ${load}] ${text}\n`);
}

async function main() {
  const { values } = parseArgs({
    options: {
      stored: { type: 'string', default: '10000' },
      ingest: { type: 'string', default: '10000' },
      rounds: { type: 'string', default: '3' },
      profile: { type: 'boolean', default: false },
      out: { type: 'string' },
      env: { type: 'string', default: '' },
    },
  });
  const stored = Number(values.stored);
  const count = Number(values.ingest);
  const extraEnv = envOption(values.env);
  const out = values.out ?? mkdtempSync(path.join(os.tmpdir(), 'guildhall-ingest-'));
  mkdirSync(out, { recursive: true });
  const profiling = values.profile
    ? { NODE_OPTIONS: `--require ${path.join(__dirname, 'lib/cpuProfile.js')}`, PROFILE_DIR: out }
    : {};
  const sys = await startBenchSystem({ env: { ...extraEnv, ...profiling }, mongoEnv: profiling });
  const client = await MongoClient.connect(sys.mongoUrl);
  try {
    const logsDb = client.db(sys.dbName('logs'));
    say(`system up; seeding ${stored.toLocaleString('en-US')} messages`);
    const people = fixturePeople(sys.fake);
    await seedMessages(logsDb, { guild: sys.guild, count: stored, seed: 10, worker: 1023n, people });
    const rounds = Number(values.rounds);
    const startMs = Date.now() - (rounds + 1) * count;
    for (let round = 0; round < rounds; round++) {
      const t0 = performance.now();
      const bulk = await cpuPerThousand(sys, count, () =>
        seedMessages(logsDb, {
          guild: sys.guild,
          count,
          seed: 20 + round,
          worker: BigInt(900 + round),
          people,
        }),
      );
      const bulkRate = count / ((performance.now() - t0) / 1000);
      const live = await cpuPerThousand(sys, count, () =>
        measureIngest(sys, logsDb, count, { seq: 1_000_000 * (round + 1), startMs: startMs + round * count }),
      );
      const r = live.result;
      say(
        `round ${round + 1}: ingest ${r.rate.toFixed(0)} msg/s, store bulk insert ${bulkRate.toFixed(0)} docs/s: ${(r.rate / bulkRate).toFixed(2)} x; published in ${r.publishMs.toFixed(0)} ms, all searchable after ${r.ms.toFixed(0)} ms`,
      );
      say(`  CPU ms per 1,000 messages, ingest: ${perThousand(live.used)}`);
      say(
        `  CPU ms per 1,000 messages, bulk insert: mongo ${bulk.used.mongo?.toFixed(0)}, bench ${bulk.used.bench.toFixed(0)}`,
      );
    }
  } finally {
    await client.close();
    await sys.stop();
  }
  if (!values.profile) return;
  for (const target of ['logs', 'embedded-mongo']) {
    const file = readdirSync(out).find((f) => f.startsWith(`${target}.`) && f.endsWith('.cpuprofile'));
    if (!file) {
      process.stdout.write(`no profile of ${target} in ${out}\n`);
      continue;
    }
    const summary = summarise(path.join(out, file));
    const lines = (rows) => rows.map(([name, pct]) => `${pct.toFixed(1).padStart(6)} %  ${name}`).join('\n');
    process.stdout.write(
      `\n${target} (${summary.samples} samples), self time by package:\n${lines(summary.packages)}\n`,
    );
    process.stdout.write(`\nby function:\n${lines(summary.functions)}\n`);
  }
  process.stdout.write(`\nprofiles in ${out}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
