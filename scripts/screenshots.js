#!/usr/bin/env node
/**
 * `npm run screenshots`: screenshots of the dashboard's pages into docs/dashboard/ (desktop 1280x860, plus the cases
 * list at phone width 390x844). Starts the whole system with the fake platform (libs/testkit startSystem), drives the
 * demo guild's day through the platform (`driveGuildDay`: its gateway sends the bridge what the platform would),
 * makes a few cases and a ticket through the API, signs in through the real login in Debian's Chromium
 * (playwright-core, /usr/bin/chromium or CHROMIUM_PATH) and visits each page.
 * Needs the build (`npm run build`, which the npm script runs first).
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'docs', 'dashboard');
const tk = require(path.join(ROOT, 'libs/testkit/dist'));
const { DayClock, driveGuildDay, FIXTURE_IDS } = require(path.join(ROOT, 'libs/platform-simulator/dist'));

async function main() {
  const unavailable = tk.browserUnavailable();
  if (unavailable) throw new Error(`cannot take screenshots: ${unavailable}`);
  fs.mkdirSync(OUT, { recursive: true });
  const clock = new DayClock();
  const sys = await tk.startSystem({ dashboardAtGateway: true, day: 'play', platformClock: () => clock.now() });
  const browser = await tk.launchChromium();
  try {
    const day = await driveGuildDay(sys.fake, sys.dayStart, clock);
    clock.release();
    const g = sys.guild;
    const cookie = await sys.login(tk.USERS.owner);
    const call = async (method, p, body) => {
      const res = await fetch(`${sys.gatewayUrl}${p}`, {
        method,
        headers: {
          cookie: `service_session=${cookie}`,
          origin: sys.gatewayUrl,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      const text = await res.text();
      return text ? JSON.parse(text) : undefined;
    };
    const gone = new Set([...day.left, day.spammer, day.kicked, day.bannedByModerator, day.bannedByBot]);
    const member = day.joined.find((id) => !gone.has(id));
    await call('POST', `/api/v1/servers/${g}/cases`, {
      target: member,
      action: 'warn',
      reason: 'Spoilers outside #spoilers',
    });
    const timeout = await call('POST', `/api/v1/servers/${g}/cases`, {
      target: member,
      action: 'timeout',
      reason: 'Kept posting spoilers after a warning',
      duration: 3600,
    });
    await call('PUT', `/api/v1/servers/${g}/staff/${FIXTURE_IDS.roles.moderator}`, {
      caps: ['cases.read', 'cases.write', 'appeals.decide', 'reports.manage', 'tickets.read', 'tickets.manage'],
    });
    const { idea, planned, done } = FIXTURE_IDS.tags;
    await call('PUT', `/api/v1/servers/${g}/forums/${FIXTURE_IDS.channels.suggestions}`, {
      statuses: [
        { tag: idea, reply: '', rewardRole: null, lock: false, archiveAfter: 0 },
        { tag: planned, reply: 'Planned for an upcoming release.', rewardRole: null, lock: false, archiveAfter: 0 },
        { tag: done, reply: 'Done, thanks for the idea!', rewardRole: null, lock: true, archiveAfter: 1440 },
      ],
    });
    const packs = await call('GET', `/api/v1/servers/${g}/packs`);
    const pack = await call('POST', `/api/v1/servers/${g}/packs`, { name: 'Lantern emoji' });
    const emoji = packs.loose.filter((i) => i.kind !== 'sticker').map((i) => i.id);
    await call('POST', `/api/v1/servers/${g}/packs/${pack.id}/items`, { ids: emoji.slice(0, 4) });
    await call('PATCH', `/api/v1/servers/${g}/tickets/settings`, { blacklist: [day.spammer] });
    const type = await call('POST', `/api/v1/servers/${g}/tickets/types`, { name: 'Support', oneOpen: false });
    await call('POST', `/api/v1/servers/${g}/tickets/panel`, { channel: FIXTURE_IDS.channels.tickets });
    const ticket = await call('POST', `/api/v1/servers/${g}/tickets`, { type: type.id, opener: member });
    await tk.waitFor(
      () => call('GET', `/api/v1/servers/${g}/messages?deleted=true`),
      (r) => r.messages.length > 0,
      30_000,
    );

    const context = await tk.contextAs(browser, sys, tk.USERS.owner);
    const page = await context.newPage();
    const shot = async (name) => {
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: false });
      process.stdout.write(`docs/dashboard/${name}.png\n`);
    };
    const guild = (p) => `${sys.gatewayUrl}/guilds/${g}${p}`;
    await page.goto(`${sys.gatewayUrl}/`);
    await shot('sign-in');
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByRole('heading', { name: 'Your guilds' }).waitFor();
    await shot('guilds');
    await page.goto(guild(''));
    await page.locator('tr[data-feature]').first().waitFor();
    await shot('overview');
    await page.goto(guild('/cases'));
    await page.locator('tr[data-case]').first().waitFor();
    await shot('cases');
    await page.goto(guild(`/cases/${timeout.number}`));
    await page.locator('.timeline li').first().waitFor();
    await shot('case');
    await page.goto(guild('/cases/new'));
    await page.getByLabel(/^Member/).fill(member);
    await page.getByTestId('suggestion').waitFor();
    await shot('case-new');
    await page.goto(guild(`/members/${member}`));
    await page.locator('.suggestion').waitFor();
    await shot('member');
    await page.goto(guild('/tickets'));
    await page.locator('tr[data-ticket]').first().waitFor();
    await shot('tickets');
    await page.goto(guild(`/tickets/${ticket.number}`));
    await page.getByRole('heading', { name: 'Conversation' }).waitFor();
    await shot('ticket');
    await page.goto(guild('/tickets/settings'));
    await page.getByRole('button', { name: 'Add type' }).waitFor();
    await shot('ticket-settings');
    await page.goto(guild('/logs'));
    await page.getByRole('button', { name: 'Save log settings' }).waitFor();
    await shot('logs');
    await page.goto(guild('/messages'));
    await page.getByLabel('Deleted only').check();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.results > li').first().waitFor();
    await shot('messages');
    await page.goto(guild('/journal'));
    await page.locator('li[data-event]').first().waitFor();
    await shot('journal');
    await page.goto(guild('/staff'));
    await page.locator('li[data-role]').first().waitFor();
    await shot('staff');
    await page.goto(guild('/forums'));
    await page.locator('tr[data-post]').first().waitFor();
    await shot('forums');
    await page.goto(guild('/packs'));
    await page.locator('li[data-item]').first().waitFor();
    await shot('packs');
    await page.goto(guild('/queues'));
    await page.getByRole('heading', { name: 'Open reports' }).waitFor();
    await shot('queues');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(guild('/cases'));
    await page.locator('tr[data-case]').first().waitFor();
    await shot('cases-phone');
    await context.close();
  } finally {
    await browser.close();
    await sys.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  },
);
