/**
 * `node bench/profile.js [--route settings|members] [--via direct|gateway] [--seconds 10] [--connections 20]
 * [--process tickets] [--out <dir>]` (build first): boots the bench system with every service process and the
 * embedded MongoDB (`--process embedded-mongo`) under the CPU profiler (bench/lib/cpuProfile.js), loads one read route with autocannon (directly at the service with a
 * signed identity header, or through the gateway with a session cookie), stops the system and prints the
 * throughput and, for `--process` (default: the route's service, or gateway with `--via gateway`), self time per
 * package and per function. The `.cpuprofile` files stay in `--out` (default: a temporary directory) for Chrome
 * DevTools. The profiles include start-up; compare shares, not absolute figures. Used for docs/benchmarks.md.
 */
const { mkdirSync, mkdtempSync, readdirSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { signIdentity, CAPS } = require('../libs/shared/dist');
const { FIXTURE_IDS } = require('../libs/platform-simulator/dist');
const { startBenchSystem } = require('./lib/system');
const { loadTest } = require('./lib/measure');
const { summarise } = require('./lib/profileSummary');

const ROUTES = {
  settings: { service: 'tickets', path: (guild) => `/api/v1/servers/${guild}/tickets/settings` },
  members: { service: 'moderation', path: (guild) => `/api/v1/servers/${guild}/members/${FIXTURE_IDS.owner}` },
};

async function main() {
  const { values } = parseArgs({
    options: {
      route: { type: 'string', default: 'settings' },
      via: { type: 'string', default: 'direct' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '20' },
      process: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const route = ROUTES[values.route];
  if (!route) throw new Error(`--route must be one of ${Object.keys(ROUTES).join(', ')}`);
  const out = values.out ?? mkdtempSync(path.join(os.tmpdir(), 'guildhall-profile-'));
  mkdirSync(out, { recursive: true });
  const target = values.process ?? (values.via === 'gateway' ? 'gateway' : route.service);
  const profiling = { NODE_OPTIONS: `--require ${path.join(__dirname, 'lib/cpuProfile.js')}`, PROFILE_DIR: out };
  const sys = await startBenchSystem({ env: profiling, mongoEnv: profiling });
  try {
    const pathname = route.path(sys.guild);
    let url = `${sys.urls[route.service]}${pathname}`;
    let headers = {
      'x-guildhall-identity': await signIdentity(
        { kind: 'user', sub: FIXTURE_IDS.owner, name: 'Rowan', guild: sys.guild, caps: CAPS },
        sys.identitySecret,
        3600,
      ),
    };
    if (values.via === 'gateway') {
      url = `${sys.gatewayUrl}${pathname}`;
      headers = { cookie: `service_session=${await sys.login(FIXTURE_IDS.owner)}` };
    }
    const r = await loadTest({
      url,
      headers,
      seconds: Number(values.seconds),
      connections: Number(values.connections),
    });
    process.stdout.write(
      `${values.route} via ${values.via}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.non2xx} non-2xx\n`,
    );
  } finally {
    await sys.stop();
  }
  const file = readdirSync(out).find((f) => f.startsWith(`${target}.`) && f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile of ${target} in ${out}`);
  const summary = summarise(path.join(out, file));
  const lines = (rows) => rows.map(([name, pct]) => `${pct.toFixed(1).padStart(6)} %  ${name}`).join('\n');
  process.stdout.write(`\n${target} (${summary.samples} samples), self time by package:\n${lines(summary.packages)}\n`);
  process.stdout.write(`\nby function:\n${lines(summary.functions)}\n\nprofiles in ${out}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
