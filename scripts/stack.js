/**
 * Boots Guildhall as separate processes on one machine: the embedded MongoDB (unless MONGO_URL is given), NATS
 * (NATS_URL, or one already on 127.0.0.1:4222, or a `nats-server` from PATH started here), the five services and
 * the gateway. Used by `npm start`, `npm run demo` and the end-to-end and fault suites.
 */
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { supervise } = require('./supervisor');

const ROOT = path.resolve(__dirname, '..');
const SERVICES = ['moderation', 'tickets', 'logs', 'community', 'billing'];
/**
 * V8 heap sizing of every service and gateway process: a 4 MB semi-space (young generation) and a 192 MB old space.
 * Without it V8 sizes the heap for the machine's RAM and lets garbage pile up under load (each process reached
 * 220-290 MB RSS in `npm run bench` on a 24 GB machine); with it they stay near 110-135 MB at about the same
 * throughput (docs/benchmarks.md). NODE_OPTIONS given in the environment come after it, so they win.
 */
const SERVICE_HEAP_FLAGS = '--max-semi-space-size=4 --max-old-space-size=192';
/**
 * V8 flags of the embedded MongoDB process (given on its command line: NODE_OPTIONS does not take them). Every insert
 * into an index block replaces the block's packed string, so the store makes garbage in old space as fast as it
 * inserts; by default V8 lets the old generation grow to ~4x what survived the last full GC before marking again
 * (3.4 GB of heap for 0.46 GB alive with 1.2 M messages). 25 % growth keeps it near 2x (1,005 MB RSS in the same
 * reproduction, 903 MB in the full bench) for 15-33 % more CPU per insert (docs/benchmarks.md, "heap growth").
 */
const STORE_NODE_FLAGS = ['--heap-growing-percent=25'];

/** Resolves when something accepts TCP connections on host:port, rejects after `timeoutMs`. */
async function waitForPort(host, port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await canConnect(host, port)) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
}

function canConnect(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `url` until it answers 200, or throws after `timeoutMs` naming what did not come up. With `child` (the
 * process that should answer), throws as soon as it exits instead, with its exit code or signal: a process that
 * died is not waited for.
 */
async function waitForReady(url, timeoutMs, name, child) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it answered ${url}`);
    }
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    await sleep(150);
  }
  throw new Error(`${name} not ready at ${url} after ${timeoutMs} ms (${last})`);
}

/** Spawns `node nodeFlags file args` with `env`, prefixing each output line with `[name]` through `log` (or discarding). */
function spawnNode(name, file, args, env, log, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, file, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const forward = (stream) => {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop();
      for (const line of lines) if (line) log?.(name, line);
    });
  };
  forward(child.stdout);
  forward(child.stderr);
  return child;
}

/** Stops a child with SIGTERM (SIGKILL after `graceMs`); resolves when it exited. */
function stopChild(child, graceMs = 10_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts the embedded MongoDB CLI on `port` with `dataDir` (null = in memory). Returns its URL, the child, and
 * `launch()` / `ready()` to start it again the same way and wait until it accepts connections (supervision).
 */
async function startEmbeddedMongo({ port, dataDir, log }) {
  const args = ['--port', String(port), ...(dataDir ? ['--data-dir', dataDir] : ['--memory'])];
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const cli = path.join(ROOT, 'libs/embedded-mongo/dist/cli.js');
  const launch = () => spawnNode('mongo', cli, args, process.env, log, STORE_NODE_FLAGS);
  const ready = () => waitForPort('127.0.0.1', port, 30_000);
  const child = launch();
  await ready();
  return { url: `mongodb://127.0.0.1:${port}`, child, launch, ready };
}

/**
 * NATS for the stack: `natsUrl` when given; else a server already on 127.0.0.1:4222; else `nats-server` from PATH
 * (JetStream on, storage under `dataDir`). Throws with install instructions when none is available.
 */
async function ensureNats({ natsUrl, dataDir, log }) {
  if (natsUrl) return { url: natsUrl, child: null };
  if (await canConnect('127.0.0.1', 4222)) return { url: 'nats://127.0.0.1:4222', child: null };
  const found = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).stdout.trim();
  if (!found) {
    throw new Error(
      'NATS is needed and none was found. Set NATS_URL to a NATS server with JetStream, or install one:\n' +
        '  Debian/Ubuntu: sudo apt-get install nats-server\n' +
        '  macOS:         brew install nats-server\n' +
        'then run this again (it starts nats-server for you).',
    );
  }
  const store = path.join(dataDir, 'nats');
  fs.mkdirSync(store, { recursive: true });
  const child = spawn(found, ['-js', '-a', '127.0.0.1', '-p', '4222', '-sd', store], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.on('data', (d) => log?.('nats', d.toString().trim()));
  await waitForPort('127.0.0.1', 4222, 15_000);
  return { url: 'nats://127.0.0.1:4222', child };
}

/** The identity secret: IDENTITY_SECRET, or one generated once and kept in `dataDir/identity-secret`. */
function identitySecret(dataDir) {
  if (process.env.IDENTITY_SECRET) return process.env.IDENTITY_SECRET;
  const file = path.join(dataDir, 'identity-secret');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * Starts everything and waits until each process answers /readyz.
 * Options: `dataDir` (default ./data), `memory` (embedded MongoDB in memory), `env` (extra variables for every
 * service), `basePort` (services get basePort+1..5, the embedded MongoDB basePort+17; default 4100), `gatewayPort`
 * (default PORT or 8080), `mongoUrl`, `natsUrl`, `namespace` (NATS_NAMESPACE), `dbPrefix` (default guildhall), `log`,
 * `bridge` (also run the platform bridge `services/bridge/dist/main.js` on port basePort+16 and wait until its
 * shards are READY; it needs PLATFORM_BOT_TOKEN and connects to the gateway `PLATFORM_API_URL`'s `/v10/gateway/bot`
 * names), `replicas` (processes per service, e.g. `{ logs: 2 }`: replica k >= 2 of a service is named `<service>-<k>`
 * and listens on basePort+20+..., sharing the service's database and NATS consumers), `supervise` (restart the
 * embedded MongoDB, a service, the gateway or the bridge when it exits unasked, with backoff, printed through
 * `log('supervisor', ...)`; see scripts/supervisor.js; `npm start` sets it). Returns the URLs (`bridgeUrl` null
 * without the bridge) and `stop()`, `kill(name, signal)` and `start(name)` for fault tests (without `supervise`).
 */
async function startStack(options = {}) {
  const dataDir = path.resolve(options.dataDir ?? path.join(ROOT, 'data'));
  const basePort = options.basePort ?? 4100;
  const log = options.log;
  const extraEnv = options.env ?? {};
  const started = [];
  const supervisors = [];
  /** The services, gateway and bridge stop together (each drains on its own), then what they use: MongoDB, NATS. */
  const stopAll = async () => {
    for (const supervisor of supervisors) supervisor.stop();
    const items = started.splice(0).reverse();
    const backing = (item) => item.name === 'mongo' || item.name === 'nats';
    await Promise.all(items.filter((item) => !backing(item)).map((item) => stopChild(item.child)));
    for (const item of items.filter(backing)) await stopChild(item.child);
  };
  /** With `supervise`: restarts process `name` (now `child`) through `launch` whenever it exits unasked. */
  const superviseChild = (name, child, launch, ready) => {
    if (!options.supervise) return;
    log?.('supervisor', `${name} started (pid ${child.pid})`);
    const relaunch = () => {
      const next = launch();
      started.push({ name, child: next });
      return next;
    };
    supervisors.push(supervise({ name, child, launch: relaunch, ready, say: (line) => log?.('supervisor', line) }));
  };
  try {
    const mongo = options.mongoUrl
      ? { url: options.mongoUrl, child: null }
      : await startEmbeddedMongo({
          port: basePort + 17,
          dataDir: options.memory ? null : path.join(dataDir, 'mongo'),
          log,
        });
    started.push({ name: 'mongo', child: mongo.child });
    if (mongo.child) superviseChild('mongo', mongo.child, mongo.launch, mongo.ready);
    const nats = await ensureNats({ natsUrl: options.natsUrl, dataDir, log });
    started.push({ name: 'nats', child: nats.child });
    const prefix = options.dbPrefix ?? 'guildhall';
    const ports = Object.fromEntries(SERVICES.map((s, i) => [s, basePort + 1 + i]));
    const urls = Object.fromEntries(SERVICES.map((s) => [s, `http://127.0.0.1:${ports[s]}`]));
    const gatewayPort = options.gatewayPort ?? Number(process.env.PORT ?? 8080);
    const common = {
      ...process.env,
      MONGO_URL: mongo.url,
      NATS_URL: nats.url,
      NATS_NAMESPACE: options.namespace ?? process.env.NATS_NAMESPACE ?? '',
      IDENTITY_SECRET: identitySecret(dataDir),
      ...extraEnv,
    };
    const envOf = (name) => ({
      ...common,
      NODE_OPTIONS: `${SERVICE_HEAP_FLAGS} ${common.NODE_OPTIONS ?? ''}`.trim(),
      PORT: String(name === 'gateway' ? gatewayPort : ports[name]),
      MONGO_DB: `${prefix}_${name}`,
      ...Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_URL`, urls[s]])),
    });
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const bridgeUrl = options.bridge ? `http://127.0.0.1:${basePort + 16}` : null;
    /** Where each process answers /readyz. */
    const extra = Object.entries(options.replicas ?? {}).flatMap(([service, n]) =>
      Array.from({ length: Math.max(0, n - 1) }, (_, i) => ({ name: `${service}-${i + 2}`, service })),
    );
    const replicaOf = Object.fromEntries(extra.map((r, i) => [r.name, { ...r, port: basePort + 20 + i }]));
    const readyUrl = (name) =>
      name === 'gateway'
        ? gatewayUrl
        : name === 'bridge'
          ? bridgeUrl
          : replicaOf[name]
            ? `http://127.0.0.1:${replicaOf[name].port}`
            : urls[name];
    const procs = {};
    const launch = (name) => {
      const replica = replicaOf[name];
      const env =
        name === 'bridge'
          ? { ...common, PORT: String(basePort + 16) }
          : replica
            ? { ...envOf(replica.service), PORT: String(replica.port) }
            : envOf(name);
      const service = replica ? replica.service : name;
      procs[name] = spawnNode(name, path.join(ROOT, `services/${service}/dist/main.js`), [], env, log);
      return procs[name];
    };
    const names = [...SERVICES, ...Object.keys(replicaOf), 'gateway', ...(options.bridge ? ['bridge'] : [])];
    for (const name of names) {
      const child = launch(name);
      started.push({ name, child });
      superviseChild(
        name,
        child,
        () => launch(name),
        () => waitForReady(`${readyUrl(name)}/readyz`, 60_000, name, procs[name]),
      );
    }
    await Promise.all(names.map((name) => waitForReady(`${readyUrl(name)}/readyz`, 60_000, name, procs[name])));
    return {
      gatewayUrl,
      bridgeUrl,
      urls,
      mongoUrl: mongo.url,
      natsUrl: nats.url,
      identitySecret: common.IDENTITY_SECRET,
      envOf,
      processes: procs,
      /** Sends `signal` to a process (a service, 'gateway' or 'bridge'; SIGKILL for crash tests), resolves when it exited. */
      kill(name, signal = 'SIGKILL') {
        const child = procs[name];
        return new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill(signal);
        });
      },
      /** Starts a stopped process again and waits until it is ready. */
      async start(name) {
        const child = launch(name);
        started.push({ name, child });
        await waitForReady(`${readyUrl(name)}/readyz`, 60_000, name, child);
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

module.exports = {
  startStack,
  startEmbeddedMongo,
  ensureNats,
  waitForReady,
  stopChild,
  SERVICES,
  ROOT,
  STORE_NODE_FLAGS,
};
