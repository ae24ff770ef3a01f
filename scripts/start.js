#!/usr/bin/env node
/**
 * `npm start`: the gateway, all five services and the platform bridge on this machine, the embedded MongoDB persisted
 * under ./data (or MONGO_URL), NATS from NATS_URL or a nats-server found on PATH. With PLATFORM_BOT_TOKEN the bridge
 * connects to the platform's gateway; without it the platform simulator runs (on PORT+1) and the bridge connects to
 * the simulator gateway; once everything is ready the demo guild's day (ending now) is driven through the simulator
 * (`guildDayDriver`: members, staff and the bot act through its routes, each action at its time on the simulator's
 * clock, and the simulator gateway sends the bridge what the platform would). data/stack.json holds the day's start
 * and, once it was driven, its facts (who did what), for `npm run demo`. Before the day the demo guild's ticket panel
 * and type are written into the tickets database (scripts/fixtureTickets.js), so the day's member opens a ticket.
 * STACK_BASE_PORT moves the services' ports (default 4100: services 4101-4105, bridge 4116, embedded MongoDB 4117);
 * DATA_DIR moves ./data. The embedded MongoDB, every service, the gateway and the bridge are supervised: a process that exits unasked
 * (crash, kill -9) is restarted with backoff, printed on `supervisor` lines with the time until it was ready again.
 * Ctrl-C stops everything cleanly.
 */
const fs = require('node:fs');
const path = require('node:path');
const { startStack, ROOT } = require('./stack');
const { startSimulator } = require('./simulator');
const { seedFixtureTickets } = require('./fixtureTickets');

/** Where the embedded MongoDB, a NATS server started here and the identity secret keep their files. */
const DATA_DIR = path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data'));
/** Where `npm run session` and `npm run demo` find the running system. */
const STACK_FILE = path.join(DATA_DIR, 'stack.json');

const colors = {
  gateway: 36,
  moderation: 33,
  tickets: 35,
  logs: 32,
  community: 34,
  billing: 31,
  mongo: 90,
  nats: 90,
  bridge: 96,
  supervisor: 97,
};
const log = (name, line) => {
  if (process.env.QUIET && name !== 'supervisor' && !/"level":(50|60)/.test(line)) return;
  process.stdout.write(`\x1b[${colors[name] ?? 0}m${name.padEnd(10)}\x1b[0m ${line}\n`);
};

async function main() {
  const port = process.env.PORT ?? '8080';
  const gateway = `http://127.0.0.1:${port}`;
  const env = {
    COOKIE_SECURE: process.env.COOKIE_SECURE ?? 'false',
    DASHBOARD_ORIGINS: process.env.DASHBOARD_ORIGINS ?? `${gateway},http://localhost:${port}`,
  };
  const simulate = !process.env.PLATFORM_BOT_TOKEN;
  const lib = simulate ? require(path.join(ROOT, 'libs/platform-simulator/dist')) : null;
  const dayStart = simulate ? lib.recentDayStart() : null;
  const clock = simulate ? new lib.DayClock() : null;
  const simulator = simulate ? await startSimulator({ port: Number(port) + 1, clock }) : null;
  if (simulator) {
    Object.assign(env, {
      PLATFORM_API_URL: simulator.url,
      PLATFORM_CDN_URL: simulator.cdnUrl,
      PLATFORM_BOT_TOKEN: 'simulator',
      PLATFORM_OAUTH_URL: `${simulator.origin}/oauth2/authorize`,
      OAUTH_CLIENT_ID: simulator.clientId,
      OAUTH_CLIENT_SECRET: simulator.clientSecret,
      OAUTH_REDIRECT_URI: `${gateway}/auth/callback`,
    });
  }
  const stack = await startStack({
    mongoUrl: process.env.MONGO_URL,
    natsUrl: process.env.NATS_URL,
    basePort: process.env.STACK_BASE_PORT ? Number(process.env.STACK_BASE_PORT) : undefined,
    log,
    bridge: true,
    supervise: true,
    dataDir: DATA_DIR,
    env,
  });
  const url = stack.gatewayUrl;
  /** Writes data/stack.json; `facts` are the driven day's (null while it is being driven). */
  const writeStackFile = (facts) => {
    fs.mkdirSync(path.dirname(STACK_FILE), { recursive: true });
    const running = {
      gatewayUrl: url,
      mongoUrl: stack.mongoUrl,
      natsUrl: stack.natsUrl,
      namespace: process.env.NATS_NAMESPACE ?? '',
      ...(simulator && { simulator: { origin: simulator.origin, dayStart: dayStart.toISOString(), facts } }),
    };
    fs.writeFileSync(STACK_FILE, JSON.stringify(running, null, 2));
  };
  writeStackFile(null);
  process.stdout.write(
    [
      '',
      `Guildhall is running: ${url}`,
      `  dashboard: ${url}/  (open it and sign in with the platform)`,
      `  health:   ${url}/healthz`,
      `  API docs: ${url}/api/docs`,
      `  bridge:   ${stack.bridgeUrl} (health), connected to ${simulator ? 'the simulator gateway' : 'the platform gateway (PLATFORM_BOT_TOKEN)'}`,
      simulator
        ? `  platform: simulator at ${simulator.origin} with the demo guild "Lantern Hall", its day driven through the bridge (no bot token set; state in memory)`
        : `  platform: ${process.env.PLATFORM_API_URL ?? 'https://discord.com/api'}`,
      simulator
        ? `  sign in:  open ${url}/ and press "Sign in" (the simulator signs you in as the demo guild's owner), or:`
        : '  sign in:  set OAUTH_CLIENT_ID/OAUTH_CLIENT_SECRET/OAUTH_REDIRECT_URI and open /auth/login, or for local use:',
      '            npm run session -- --user <your platform user id>   (prints a service_session cookie)',
      ...(simulator
        ? ['  demo:     npm run demo   (a tour of the demo guild with live answers, once its day was driven)']
        : []),
      '',
    ].join('\n'),
  );
  let stopping = false;
  const shutdown = async () => {
    stopping = true;
    process.stdout.write('\nstopping...\n');
    await stack.stop();
    await simulator?.close();
    fs.rmSync(STACK_FILE, { force: true });
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  if (simulator) {
    try {
      await seedFixtureTickets(stack.mongoUrl, stack.envOf('tickets').MONGO_DB, lib);
      await commandsRegistered(simulator);
      writeStackFile(await driveDay(lib.guildDayDriver(simulator, dayStart, clock)));
    } catch (err) {
      if (!stopping) process.stderr.write(`platform   driving the demo guild's day failed: ${err.stack ?? err}\n`);
    } finally {
      clock.release();
    }
  }
}

/**
 * Waits (30 s at most) until the bridge registered the application's commands with the simulator (a successful PUT of
 * the global or a guild's command list): the bridge registers them in the background once started, and the driven
 * day's member reports a message through the registered "Report message" command only when it is registered.
 */
async function commandsRegistered(simulator) {
  const routes = [
    '/applications/{application_id}/commands',
    '/applications/{application_id}/guilds/{guild_id}/commands',
  ];
  const registered = () => routes.some((route) => simulator.callsTo('PUT', route).some((c) => c.status < 300));
  const deadline = Date.now() + 30_000;
  while (!registered() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (!registered())
    process.stdout.write('platform   the bridge registered no command within 30 s: the day is driven without them\n');
}

/**
 * Drives the demo guild's day with `driver` (the bridge is READY: startStack waited for it, so it receives the
 * guild's GUILD_CREATE and then every dispatch of the day), printing progress every 500 actions; resolves the day's
 * facts.
 */
async function driveDay(driver) {
  const started = Date.now();
  const progress = () => `${driver.sent} of ${driver.total} actions, ${((Date.now() - started) / 1000).toFixed(0)} s`;
  process.stdout.write("platform   driving the demo guild's day through the simulator...\n");
  while ((await driver.play(500)) > 0) process.stdout.write(`platform   ${progress()}\n`);
  process.stdout.write(`platform   the demo guild's day was driven through the bridge: ${progress()}\n`);
  return driver.facts;
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
