#!/usr/bin/env node
/**
 * `npm run demo` (after `npm start` without a bot token): `npm start` drove the demo guild's day through the platform
 * simulator, whose gateway sent the bridge what the platform would; data/stack.json holds the day's start and facts
 * (who did what, ids the simulator issued). This waits until `npm start` finished driving the day (at most 5 min),
 * signs in the demo guild's owner (a session cookie), waits until the services have ingested the day (its bans, the
 * lifted ban and the purged spam are in, and twice in a row 500 ms apart every consumer of the PLATFORM and EVENTS
 * streams had handled all it was given with nothing published in between; at most 60 s) and prints a short tour: URLs to open, the cookie, and curl lines for a
 * few endpoints, with what they answer right now. It publishes nothing, so running it again is safe and prints the
 * same tour.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const stackFile = path.join(path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data')), 'stack.json');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The running system from data/stack.json once its simulator has the driven day's facts: `{gatewayUrl, natsUrl,
 * simulator: {origin, dayStart, facts}}`. Throws when nothing runs, when the platform is not the simulator, or when
 * the day is still not driven after `timeoutMs`.
 */
async function runningWithDay(timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (let waiting = false; ; waiting = true) {
    if (!fs.existsSync(stackFile)) throw new Error('Guildhall is not running: start it with `npm start` first.');
    const running = JSON.parse(fs.readFileSync(stackFile, 'utf8'));
    if (!running.simulator)
      throw new Error('The demo guild lives in the platform simulator: run `npm start` without PLATFORM_BOT_TOKEN.');
    if (running.simulator.facts) return running;
    if (Date.now() > deadline) throw new Error("`npm start` has not finished driving the demo guild's day.");
    if (!waiting) process.stdout.write("Waiting until `npm start` has driven the demo guild's day...\n");
    await sleep(1000);
  }
}

/**
 * The bus's state when every durable consumer of the PLATFORM and EVENTS streams (`bus`: a shared EventBus) has
 * handled all it was given (nothing pending or unacknowledged): the streams' last sequence numbers, so two equal
 * readings show nothing was published in between. Null while work is left.
 */
async function quietBus(bus) {
  const state = [];
  for (const stream of ['PLATFORM', 'EVENTS']) {
    const name = bus.streamName(stream);
    for await (const c of bus.jsm.consumers.list(name)) if (c.num_pending + c.num_ack_pending > 0) return null;
    state.push((await bus.jsm.streams.info(name)).state.last_seq);
  }
  return state.join(' ');
}

async function main() {
  const running = await runningWithDay(300_000);
  const { dayStart, facts, origin } = running.simulator;
  const ids = require(path.join(ROOT, 'libs/platform-simulator/dist')).FIXTURE_IDS;
  process.stdout.write(
    `The demo guild's day (${dayStart} + 24 h) was driven through the simulator ${origin}, its gateway and the bridge into ${running.natsUrl}\n`,
  );

  const session = spawnSync(
    process.execPath,
    [path.join(__dirname, 'session.js'), '--user', ids.owner, '--name', 'rowan89'],
    { encoding: 'utf8' },
  );
  const cookie = /service_session=(\S+)/.exec(session.stdout)?.[1];
  if (!cookie) throw new Error(`could not create a session: ${session.stderr}`);
  const gw = running.gatewayUrl;
  const api = `${gw}/api/v1/servers/${ids.guild}`;
  const get = (p) => fetch(`${api}${p}`, { headers: { cookie: `service_session=${cookie}` } }).then((r) => r.json());
  const targets = (events) => new Set((events ?? []).map((e) => e.target));

  const banned = [facts.bannedByModerator, facts.bannedByBot];
  process.stdout.write(
    `Waiting until the services have ingested it (${banned.length} bans, 1 lifted ban, ${facts.spamMessages.length} purged spam messages)...\n`,
  );
  // This day's spam (its ids are new each time `npm start` drives a day), from the newest one back.
  const lastSpam = facts.spamMessages.reduce((a, b) => (BigInt(a) > BigInt(b) ? a : b));
  const spamPage = `/messages?channel=${ids.channels.general}&deleted=true&before=${BigInt(lastSpam) + 1n}&limit=100`;
  const shared = require(path.join(ROOT, 'libs/shared/dist'));
  const bus = await shared.EventBus.connect({
    url: running.natsUrl,
    name: 'demo',
    namespace: running.namespace || undefined,
    logger: shared.createLogger('demo', 'warn'),
  });
  const deadline = Date.now() + 60_000;
  let bans = [];
  let quiet = null;
  const ingested = async () => {
    const before = quiet;
    quiet = await quietBus(bus);
    if (!quiet || quiet !== before) return false;
    bans = (await get('/journal?kind=member_ban&limit=100')).events ?? [];
    const unbans = targets((await get('/journal?kind=member_unban&limit=100')).events);
    const purged = (await get(spamPage)).messages?.filter((m) => facts.spamMessages.includes(m.id)) ?? [];
    const bannedNow = targets(bans);
    return (
      banned.every((id) => bannedNow.has(id)) &&
      unbans.has(facts.unbanned) &&
      purged.length === facts.spamMessages.length
    );
  };
  while (!(await ingested()) && Date.now() < deadline) await sleep(500);
  await bus.close();
  const spam = await get('/messages?q=free%20nitro&deleted=true');
  const record = await get(`/members/${facts.spammer}`);
  const tickets = (await get('/tickets')).tickets ?? [];
  const reports = (await get('/reports?status=open')).reports ?? [];
  const reported = reports.find((r) => r.message === facts.report?.message);
  const commandCases = facts.byCommand
    ? ((await get(`/cases?target=${facts.timedOut.user}`)).cases ?? []).filter((x) =>
        ['warn', 'timeout'].includes(x.action),
      )
    : [];
  const count = async (kind) => ((await get(`/journal?kind=${kind}&limit=100`)).events ?? []).length;
  const changes = {
    nickname: await count('member_nickname'),
    channel: await count('channel_update'),
    emoji: await count('expression_update'),
    roles: await count('member_roles'),
  };
  const gone = new Set([...facts.left, facts.spammer, facts.kicked, facts.bannedByBot]);
  const member = facts.joined.find((id) => !gone.has(id));

  const c = `-H 'Cookie: service_session=${cookie}'`;
  const o = `-H 'Origin: ${gw}'`;
  process.stdout.write(
    [
      '',
      'Tour of the demo guild "Lantern Hall"',
      `  API docs (open in a browser):  ${gw}/api/docs`,
      `  Sign in in a browser:          ${gw}/auth/login   (the simulator signs you in as the owner)`,
      `  Session cookie (owner):        service_session=${cookie}`,
      '',
      `  Journal: ${bans.length} bans, actors from the audit log:`,
      `    curl ${c} '${api}/journal?kind=member_ban'`,
      `  Journal: ${changes.nickname} nickname, ${changes.channel} channel, ${changes.emoji} emoji and ${changes.roles} role changes of the day:`,
      `    curl ${c} '${api}/journal?kind=member_nickname'`,
      `  Search (deleted spam found: ${spam.messages?.length ?? 0}):`,
      `    curl ${c} '${api}/messages?q=free%20nitro&deleted=true'`,
      `  The spammer's record (${record.cases?.length ?? 0} cases, ${record.events?.length ?? 0} events, ${record.deleted?.length ?? 0} deleted messages, suggestion: ${record.suggestion?.action ?? '-'}):`,
      `    curl ${c} '${api}/members/${facts.spammer}'`,
      '  Roles and channels:',
      `    curl ${c} '${api}/structure'`,
      '  Warn a member who joined during the day (a case; the moderation log is posted when log channels are set):',
      `    curl ${c} ${o} -H 'Content-Type: application/json' -d '{"target":"${member}","action":"warn","reason":"demo"}' '${api}/cases'`,
      `  Reports filed in the platform with the "Report message" command and its reason modal (${reports.length} open${reported ? `: ${reported.reporterName} reported ${reported.authorName}, "${reported.reason}"` : ''}):`,
      `    curl ${c} '${api}/reports?status=open'`,
      ...(commandCases.length
        ? [
            `  Cases taken in the platform with /warn and /timeout (${commandCases.map((x) => `#${x.number} ${x.action} of ${x.targetName} by ${x.moderatorName}`).join('; ')}):`,
            `    curl ${c} '${api}/cases?target=${facts.timedOut.user}'`,
          ]
        : []),
      `  Tickets (${tickets.map((t) => `#${t.number} ${t.status}, opened by ${t.openerName} from the panel`).join('; ') || 'none'}):`,
      `    curl ${c} '${api}/tickets'`,
      '  Post the ticket panel again:',
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
