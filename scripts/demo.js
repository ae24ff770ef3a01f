#!/usr/bin/env node
/**
 * `npm run demo` (after `npm start` without a bot token): the simulator played the demo guild's recorded day through
 * the simulator gateway and the bridge when `npm start` began (its day start is in data/stack.json). This signs in the
 * demo guild's owner (a session cookie), waits until the day is ingested and prints a short tour: URLs to open, the
 * cookie, and curl lines for a few endpoints, with what they answer right now. It publishes nothing, so running it
 * again is safe and prints the same tour.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const stackFile = path.join(path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data')), 'stack.json');

async function main() {
  if (!fs.existsSync(stackFile)) throw new Error('Guildhall is not running: start it with `npm start` first.');
  const running = JSON.parse(fs.readFileSync(stackFile, 'utf8'));
  if (!running.simulator)
    throw new Error('The demo guild lives in the platform simulator: run `npm start` without PLATFORM_BOT_TOKEN.');
  const lib = require(path.join(ROOT, 'libs/platform-simulator/dist'));
  const dayStart = new Date(running.simulator.dayStart);
  process.stdout.write(
    `The demo guild's day (${dayStart.toISOString()} + 24 h) was played by the simulator ${running.simulator.origin} through the bridge into ${running.natsUrl}\n`,
  );

  const ids = lib.FIXTURE_IDS;
  const day = lib.guildDay(dayStart);
  const facts = day.facts;
  const dayBans = day.payloads.filter((p) => p.t === 'GUILD_BAN_ADD').length;
  const session = spawnSync(
    process.execPath,
    [path.join(__dirname, 'session.js'), '--user', ids.owner, '--name', 'rowan89'],
    {
      encoding: 'utf8',
    },
  );
  const cookie = /service_session=(\S+)/.exec(session.stdout)?.[1];
  if (!cookie) throw new Error(`could not create a session: ${session.stderr}`);
  const gw = running.gatewayUrl;
  const api = `${gw}/api/v1/servers/${ids.guild}`;
  const get = (p) => fetch(`${api}${p}`, { headers: { cookie: `service_session=${cookie}` } }).then((r) => r.json());

  process.stdout.write(
    `Waiting until the services have ingested it (${dayBans} bans, ${facts.spamMessages.length} deleted spam messages)...\n`,
  );
  const deadline = Date.now() + 60_000;
  let bans = [];
  let deleted = [];
  while (Date.now() < deadline && (bans.length < dayBans || deleted.length < facts.spamMessages.length)) {
    bans = (await get('/journal?kind=member_ban')).events ?? [];
    deleted = (await get(`/messages?deleted=true&limit=100`)).messages?.filter((m) => m.author === facts.spammer) ?? [];
    await new Promise((r) => setTimeout(r, 500));
  }
  const spam = await get('/messages?q=free%20nitro&deleted=true');
  const record = await get(`/members/${facts.spammer}`);

  const c = `-H 'Cookie: service_session=${cookie}'`;
  const o = `-H 'Origin: ${gw}'`;
  process.stdout.write(
    [
      '',
      'Tour of the demo guild "Lantern Hall"',
      `  API docs (open in a browser):  ${gw}/api/docs`,
      running.simulator
        ? `  Sign in in a browser:          ${gw}/auth/login   (the simulator signs you in as the owner)`
        : '',
      `  Session cookie (owner):        service_session=${cookie}`,
      '',
      `  Journal: ${bans.length} bans, actors from the audit log:`,
      `    curl ${c} '${api}/journal?kind=member_ban'`,
      `  Search (deleted spam found: ${spam.messages?.length ?? 0}):`,
      `    curl ${c} '${api}/messages?q=free%20nitro&deleted=true'`,
      `  The spammer's record (${record.cases?.length ?? 0} cases, ${record.events?.length ?? 0} events, ${record.deleted?.length ?? 0} deleted messages, suggestion: ${record.suggestion?.action ?? '-'}):`,
      `    curl ${c} '${api}/members/${facts.spammer}'`,
      '  Roles and channels:',
      `    curl ${c} '${api}/structure'`,
      '  Warn a member (a case; the moderation log is posted when log channels are set):',
      `    curl ${c} ${o} -H 'Content-Type: application/json' -d '{"target":"${facts.joined[1]}","action":"warn","reason":"demo"}' '${api}/cases'`,
      '  Post the ticket panel:',
      `    curl ${c} ${o} -H 'Content-Type: application/json' -d '{"channel":"${ids.channels.tickets}"}' '${api}/tickets/panel'`,
      '',
    ]
      .filter((line) => line !== '')
      .join('\n')
      .concat('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
