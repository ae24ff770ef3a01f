/**
 * Boots the whole system for the benchmark and the soak test: the tests' `startSystem` (fake platform seeded with the
 * fixture guild "Lantern Hall", identity/provider keys, NATS on a fresh namespace, the five services and the gateway
 * as separate processes) with an embedded MongoDB of its own with a large heap (the 1,000,000-message step keeps
 * everything in RAM) unless MONGO_URL is set. Loads the built `dist/` of libs/testkit.
 */
const { spawn } = require('node:child_process');
const { createServer } = require('node:net');
const path = require('node:path');
const { stopChild, ROOT, STORE_NODE_FLAGS } = require('../../scripts/stack.js');
const testing = require('../../libs/testkit/dist');

/**
 * Starts the embedded MongoDB CLI in memory with `heapMb` of V8 heap (and the store's heap growth, `STORE_NODE_FLAGS`) and `env` added to this process's environment;
 * resolves with its URL once it listens.
 */
function startBigMongo(port, heapMb, env = {}) {
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      ...STORE_NODE_FLAGS,
      path.join(ROOT, 'libs/embedded-mongo/dist/cli.js'),
      '--port',
      String(port),
      '--memory',
    ],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk) => {
      out += chunk.toString();
      const m = /listening on (mongodb:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        resolve({ url: m[1], child });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => {
      out += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`embedded MongoDB exited (${code}): ${out.slice(-2000)}`)));
  });
}

/**
 * The system as the bench uses it: the `startSystem` handle plus `{urls, mongoUrl, identitySecret, dbName(service),
 * mongoPid, dashboardOrigin}`. `log(name, line)` receives process output (warnings and errors only: LOG_LEVEL=warn).
 * Rate limits are raised so that load generators measure throughput, not the limiter (each request is still counted
 * by it), peers wait up to 10 s for each other's NATS requests (instead of 2 s: on a 2-core machine shared with
 * other work a member record's `RPC.memberHistory` sometimes takes longer, and one 503 would end the run; slow
 * answers still count in the latencies), and answers are not re-checked against the contract (the tests do that).
 * `env` is added to the services' environment, `mongoEnv` to the embedded MongoDB's.
 */
async function startBenchSystem({ log, env = {}, mongoEnv = {} } = {}) {
  const mongo = process.env.MONGO_URL ? null : await startBigMongo(await freeBenchPort(), 16_384, mongoEnv);
  const mongoUrl = process.env.MONGO_URL ?? mongo.url;
  let sys;
  try {
    sys = await testing.startSystem({
      log,
      mongoUrl,
      env: {
        VALIDATE_RESPONSES: '0',
        RATE_LIMIT_PER_IP: '100000000',
        RATE_LIMIT_PER_USER: '100000000',
        PEER_TIMEOUT_MS: '10000',
        ...env,
      },
    });
  } catch (err) {
    if (mongo) await stopChild(mongo.child);
    throw err;
  }
  return {
    ...sys,
    urls: sys.stack.urls,
    mongoUrl,
    identitySecret: sys.stack.identitySecret,
    dbName: (service) => sys.stack.envOf(service).MONGO_DB,
    mongoPid: mongo?.child.pid ?? null,
    dashboardOrigin: testing.DASHBOARD_ORIGIN,
    async stop() {
      await sys.stop();
      if (mongo) await stopChild(mongo.child);
    },
  };
}

/** A free TCP port for the bench's MongoDB (the system picks its own block of ports). */
function freeBenchPort() {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** The variables of an `--env K=V,K=V` option as an object (empty for ''; a value may hold '=', a bare K is ''). */
function envOption(text) {
  return Object.fromEntries(
    text
      .split(',')
      .filter(Boolean)
      .map((kv) => /^([^=]*)=?(.*)$/.exec(kv).slice(1)),
  );
}

module.exports = { startBenchSystem, envOption, DASHBOARD_ORIGIN: testing.DASHBOARD_ORIGIN };
