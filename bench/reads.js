/**
 * `node bench/reads.js [--messages 100000] [--cases 10000] [--events 50000] [--seconds 5] [--rounds 2]
 * [--connections 20] [--samples 200] [--only settings|members] [--profile DIR] [--env K=V,...]` (build first): the
 * read section of `npm run bench` alone, with the CPU each process spends per request. Boots the same system (`--env`
 * adds variables to the services' environment, e.g. `MEMBER_RECORD_CACHE_MS=0` to measure member record misses only),
 * seeds `--events` journal events, `--cases` cases and `--messages` messages (bench/lib/seed.js), then per round:
 * `GET tickets/settings` directly at tickets, through the gateway, from the bare express handler (the ceiling) and
 * from that handler behind a bare proxy hop (bench/lib/bareProxy.js: what an empty gateway reaches),
 * `GET members/{user}` directly and through the gateway (autocannon, `--connections`), printing req/s, p50/p99 and CPU
 * ms per request of every process (`/proc/<pid>/stat`; `nats` is the machine's one NATS server, shared with everything
 * else on it), and the load average. Ends with one client's latencies, `--samples` requests each, with the CPU ms per
 * request of every process (idle background work included, so slower requests carry more of it): the member record
 * through the gateway over the seeded members (what `npm run bench` measures), one member's record through the
 * gateway and directly (hits, with the cache on), the settings through the gateway and directly, and logs'
 * `RPC.memberHistory` asked over NATS by this process (the logs hop of a record miss alone). `--rounds 0` measures
 * them right after seeding, as `npm run bench` does. `--profile` runs every process under the CPU profiler
 * (bench/lib/cpuProfile.js) and leaves the `.cpuprofile` files in DIR (created if missing).
 */
const { mkdirSync } = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { MongoClient } = require('mongodb');
const { connect } = require('@nats-io/transport-node');
const { signIdentity, CAPS, RPC } = require('../libs/shared/dist');
const { FIXTURE_IDS } = require('../libs/platform-simulator/dist');
const { startBenchSystem, envOption } = require('./lib/system');
const { loadTest, sampleLatency, cpuMs, fetchOk } = require('./lib/measure');
const { startBareCeilings } = require('./lib/ceilings');
const { seedMessages, seedJournal, seedCases, fixturePeople } = require('./lib/seed');

const PROCESSES = ['moderation', 'tickets', 'logs', 'community', 'billing', 'gateway'];

/** Process ids by name: the services, the gateway, the embedded MongoDB (`mongo`) and the NATS server (`nats`). */
function pidsOf(sys) {
  const pids = Object.fromEntries(PROCESSES.map((n) => [n, sys.stack.processes[n].pid]));
  if (sys.mongoPid) pids.mongo = sys.mongoPid;
  const nats = spawnSync('pgrep', ['-x', 'nats-server'], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  if (nats) pids.nats = Number(nats);
  return pids;
}

/** CPU ms each process of `pids` used since `before` (its `cpuMs` then) per request, for the busy ones. */
function cpuPerRequest(pids, before, requests) {
  return Object.entries(pids)
    .map(([n, pid]) => [n, (cpuMs(pid) - before[n]) / requests])
    .filter(([, ms]) => ms >= 0.01)
    .map(([n, ms]) => `${n} ${ms.toFixed(2)}`)
    .join(', ');
}

/** CPU ms of every process now, by name (see `cpuPerRequest`). */
const cpuNow = (pids) => Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuMs(pid)]));

/**
 * One client's latency (`sampleLatency`, `samples` requests, `send(i)` makes the i-th and resolves when it is
 * answered in full) with the CPU ms per request of each busy process; prints p50/p95 and them.
 */
async function sampled(sys, name, samples, send) {
  const pids = pidsOf(sys);
  const before = cpuNow(pids);
  const r = await sampleLatency({ count: samples, send });
  const cpu = cpuPerRequest(pids, before, r.n + 20);
  process.stdout.write(
    `${name.padEnd(34)} p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  load ${os.loadavg()[0].toFixed(1)}  CPU ms/request: ${cpu}\n`,
  );
  return r;
}

/** Runs one autocannon load and prints its rate, latencies and the CPU ms per request of each busy process. */
async function measured(sys, name, { url, headers }, opts) {
  const pids = pidsOf(sys);
  const before = cpuNow(pids);
  const r = await loadTest({ url, headers, seconds: opts.seconds, connections: opts.connections });
  if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  const cpu = cpuPerRequest(pids, before, r.requests);
  const load = os.loadavg()[0].toFixed(1);
  process.stdout.write(
    `${name.padEnd(26)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  load ${load}  CPU ms/request: ${cpu}\n`,
  );
  return r;
}

async function main() {
  const { values } = parseArgs({
    options: {
      messages: { type: 'string', default: '100000' },
      cases: { type: 'string', default: '10000' },
      events: { type: 'string', default: '50000' },
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '2' },
      connections: { type: 'string', default: '20' },
      samples: { type: 'string', default: '200' },
      only: { type: 'string' },
      profile: { type: 'string' },
      env: { type: 'string', default: '' },
    },
  });
  const { only, profile, env, ...numbers } = values;
  const opts = Object.fromEntries(Object.entries(numbers).map(([k, v]) => [k, Number(v)]));
  if (profile) mkdirSync(profile, { recursive: true });
  const profiling = profile
    ? { NODE_OPTIONS: `--require ${path.join(__dirname, 'lib/cpuProfile.js')}`, PROFILE_DIR: path.resolve(profile) }
    : {};
  const sys = await startBenchSystem({ env: { ...profiling, ...envOption(env) }, mongoEnv: profiling });
  const mongo = new MongoClient(sys.mongoUrl, { serverMonitoringMode: 'poll', connectTimeoutMS: 120_000 });
  try {
    const { guild } = sys;
    const owner = FIXTURE_IDS.owner;
    const cookie = await sys.login(owner);
    const identity = await signIdentity(
      { kind: 'user', sub: owner, name: 'Rowan', username: 'rowan89', guild, caps: CAPS },
      sys.identitySecret,
      24 * 3600,
    );
    const logsDb = mongo.db(sys.dbName('logs'));
    process.stdout.write(`seeding ${opts.events} events, ${opts.cases} cases, ${opts.messages} messages\n`);
    const people = fixturePeople(sys.fake);
    await seedJournal(logsDb, { guild, count: opts.events, people });
    await seedCases(mongo.db(sys.dbName('moderation')), { guild, count: opts.cases, people });
    if (opts.messages) await seedMessages(logsDb, { guild, count: opts.messages, people });
    const members = people.slice(3).map((p) => p.id);

    const settingsPath = `/api/v1/servers/${guild}/tickets/settings`;
    const memberPath = `/api/v1/servers/${guild}/members/${members[0]}`;
    const direct = (service, p) => ({ url: `${sys.urls[service]}${p}`, headers: { 'x-guildhall-identity': identity } });
    const gateway = (p) => ({ url: `${sys.gatewayUrl}${p}`, headers: { cookie: `service_session=${cookie}` } });
    const settingsBody = await (
      await fetch(direct('tickets', settingsPath).url, direct('tickets', settingsPath))
    ).json();
    const ceilings = await startBareCeilings(settingsPath, settingsBody);
    try {
      for (let round = 1; round <= opts.rounds; round++) {
        process.stdout.write(`round ${round}\n`);
        if (only !== 'members') {
          await measured(sys, 'settings direct', direct('tickets', settingsPath), opts);
          await measured(sys, 'settings gateway', gateway(settingsPath), opts);
          await measured(sys, 'settings bare express', { url: ceilings.bare.url, headers: {} }, opts);
          await measured(sys, 'settings bare proxy hop', { url: ceilings.proxy.url, headers: {} }, opts);
        }
        if (only !== 'settings') {
          await measured(sys, 'members direct', direct('moderation', memberPath), opts);
          await measured(sys, 'members gateway', gateway(memberPath), opts);
        }
      }
    } finally {
      await ceilings.stop();
    }
    process.stdout.write(
      `one client, ${opts.samples} requests each (cycling: over the ${members.length} seeded members)\n`,
    );
    const cycling = (i) => `/api/v1/servers/${guild}/members/${members[i % members.length]}`;
    const fetched = (target) => () => fetchOk(target);
    await sampled(sys, 'record via gateway, cycling', opts.samples, (i) => fetchOk(gateway(cycling(i))));
    await sampled(sys, 'record via gateway, one member', opts.samples, fetched(gateway(memberPath)));
    await sampled(sys, 'record direct, one member', opts.samples, fetched(direct('moderation', memberPath)));
    await sampled(sys, 'settings via gateway', opts.samples, fetched(gateway(settingsPath)));
    await sampled(sys, 'settings direct', opts.samples, fetched(direct('tickets', settingsPath)));
    const nc = await connect({ servers: sys.natsUrl, name: 'bench-reads' });
    try {
      const subject = `${sys.namespace}.${RPC.memberHistory}`;
      await sampled(sys, 'RPC.memberHistory (logs), cycling', opts.samples, async (i) => {
        const request = { guild, user: members[i % members.length], limit: 50, viewer: owner };
        const answer = (await nc.request(subject, JSON.stringify(request), { timeout: 10_000 })).json();
        if (!answer.ok) throw new Error(`${subject} answered ${JSON.stringify(answer.problem)}`);
      });
    } finally {
      await nc.close();
    }
  } finally {
    await mongo.close();
    await sys.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
