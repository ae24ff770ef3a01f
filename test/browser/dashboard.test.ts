/**
 * The dashboard in a real browser (issue 19): Debian's Chromium driven by playwright-core against the whole system
 * (gateway serving the built app, five services, bridge, fake platform). Each step asserts what the page shows against
 * what the API answers, that the page logged no console error, and that axe-core finds no label, name, title or
 * contrast violation. Skips, printing why, when Chromium is not installed (.ci/run installs it).
 */
import { randomUUID } from 'node:crypto';
import { FIXTURE_IDS, messageCreate } from '@guildhall/platform-simulator';
import { createLogger, dispatchSubject, EventBus, newSnowflake } from '@guildhall/shared';
import {
  axeViolations,
  browserUnavailable,
  collectPageErrors,
  contextAs,
  launchChromium,
  type System,
  startSystem,
  testNatsUrl,
  USERS,
  waitFor,
} from '@guildhall/testkit';
import type { Browser, Page } from 'playwright-core';
import { PLAIN_MEMBER } from '../e2e/support/securitySetup';

const unavailable = browserUnavailable();
if (unavailable) process.stdout.write(`dashboard browser tests skipped: ${unavailable}\n`);
const describeBrowser = unavailable ? describe.skip : describe;

let sys: System;
let chromium: Browser;
let bus: EventBus;
let ownerCookie: string;
let g: string;
const word = `lanternword${Date.now().toString(36)}`;
let ticketNumber: number;
let ticketThread: string;

/** The API as the owner (cookie + the gateway's own origin, which the dashboard runs on). */
async function ownerApi<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sys.gatewayUrl}${path}`, {
    method,
    headers: {
      cookie: `service_session=${ownerCookie}`,
      origin: sys.gatewayUrl,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function ok<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await ownerApi<T>(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Asserts the page is accessible by the checked rules and logged no error besides the `expected` ones. */
async function expectCleanPage(page: Page, errors: string[], expected: RegExp[] = []): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  expect(errors.filter((e) => !expected.some((x) => x.test(e)))).toEqual([]);
}

/** Publishes a message by `author` in `channel` as the platform's gateway would (bridge -> bus). */
async function postMessage(channel: string, content: string): Promise<void> {
  const at = new Date();
  const author = { id: PLAIN_MEMBER, username: 'plain', discriminator: '0', global_name: null, avatar: null };
  const d = messageCreate({
    id: newSnowflake(at),
    channel_id: channel,
    guild_id: g,
    author,
    content,
    timestamp: at.toISOString(),
  });
  await bus.publish(dispatchSubject('MESSAGE_CREATE', d), { t: 'MESSAGE_CREATE', s: 1, op: 0, d }, randomUUID());
}

beforeAll(async () => {
  if (unavailable) return;
  sys = await startSystem({ dashboardAtGateway: true });
  g = sys.guild;
  bus = await EventBus.connect({
    url: testNatsUrl(),
    name: 'browser-dashboard',
    namespace: sys.namespace,
    logger: createLogger('browser', 'silent'),
  });
  ownerCookie = await sys.login(USERS.owner);
  await ok('PUT', `/api/v1/servers/${g}/staff/${FIXTURE_IDS.roles.moderator}`, { caps: ['cases.read'] });
  const type = await ok<{ id: string }>('POST', `/api/v1/servers/${g}/tickets/types`, {
    name: 'Support',
    oneOpen: false,
  });
  await ok('POST', `/api/v1/servers/${g}/tickets/panel`, { channel: FIXTURE_IDS.channels.tickets });
  const ticket = await ok<{ number: number; thread: string }>('POST', `/api/v1/servers/${g}/tickets`, {
    type: type.id,
    opener: PLAIN_MEMBER,
  });
  ticketNumber = ticket.number;
  ticketThread = ticket.thread;
  await postMessage(ticket.thread, `my order never arrived ${word}`);
  await postMessage(FIXTURE_IDS.channels.general, `hello from the hall ${word}`);
  await waitFor(
    () => ownerApi<{ messages: unknown[] }>('GET', `/api/v1/servers/${g}/messages?q=${word}`),
    (r) => r.status === 200 && r.body.messages.length === 1,
    20_000,
  );
  chromium = await launchChromium();
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  await bus?.close();
  await sys?.stop();
});

describeBrowser('dashboard', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    if (unavailable) return;
    const context = await contextAs(chromium, sys, USERS.owner);
    page = await context.newPage();
    errors = collectPageErrors(page);
  });

  // each test answers for the errors of its own pages: one that failed half-way does not fail the next
  beforeEach(() => {
    if (errors) errors.length = 0;
  });

  const url = (path: string) => `${sys.gatewayUrl}/guilds/${g}${path}`;

  it('signs in with the platform, lists the guild and shows the overview from GET …/setup', async () => {
    await page.goto(`${sys.gatewayUrl}/`);
    await page.getByRole('link', { name: 'Sign in with Discord' }).waitFor();
    expect(await page.title()).toBe('Sign in · Guildhall');
    await expectCleanPage(page, errors);
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByRole('heading', { name: 'Your guilds' }).waitFor();
    expect(new URL(page.url()).origin).toBe(sys.gatewayUrl);
    const guild = page.getByRole('link', { name: /Lantern Hall/ });
    await expect(guild.textContent()).resolves.toContain('Owner');
    await expectCleanPage(page, errors);

    await guild.click();
    const setup = await ok<{ features: Array<{ feature: string; state: string }> }>(
      'GET',
      `/api/v1/servers/${g}/setup`,
    );
    await page.locator('tr[data-feature]').first().waitFor();
    const rows = await page
      .locator('tr[data-feature]')
      .evaluateAll((trs) =>
        trs.map((tr) => ({ feature: tr.getAttribute('data-feature'), state: tr.querySelector('.badge')?.textContent })),
      );
    expect(rows).toEqual(setup.features.map((f) => ({ feature: f.feature, state: f.state })));
    expect(await page.title()).toBe('Overview — Lantern Hall · Guildhall');
    await expectCleanPage(page, errors);
  });

  it('creates a timeout case with the suggestion shown, then finds it in the list and the member record', async () => {
    const record = await ok<{ user: { name: string }; suggestion: { why: string } }>(
      'GET',
      `/api/v1/servers/${g}/members/${PLAIN_MEMBER}`,
    );
    await page.goto(url('/cases/new'));
    await page.getByLabel(/^Member/).fill(PLAIN_MEMBER);
    await expect(page.getByTestId('suggestion').textContent()).resolves.toContain(record.suggestion.why);
    await expect(page.locator('#target-info').textContent()).resolves.toContain(record.user.name);

    // An empty reason: the API's 400 is shown with the field named, and nothing is created.
    await page.getByLabel('Action').selectOption('warn');
    await page.getByRole('button', { name: 'Create case' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/reason/);
    await expectCleanPage(page, errors, [/status of 400/]);
    errors.length = 0;

    const reason = `Posting invite links ${word}`;
    await page.getByLabel('Action').selectOption('timeout');
    await page.getByLabel('Duration').selectOption('3600');
    await page.getByLabel('Reason').fill(reason);
    await page.getByRole('button', { name: 'Create case' }).click();
    await page.waitForURL(/\/cases\/\d+$/);
    const number = Number(page.url().split('/').pop());
    const detail = await ok<{ case: { status: string; action: string } }>(
      'GET',
      `/api/v1/servers/${g}/cases/${number}`,
    );
    expect(detail.case.action).toBe('timeout');
    await expect(page.getByRole('heading', { name: `Case #${number}` }).isVisible()).resolves.toBe(true);
    await expect(page.locator('.case-reason').textContent()).resolves.toBe(reason);
    await expect(page.locator('.timeline').textContent()).resolves.toContain('created');
    await expectCleanPage(page, errors);

    await page.goto(url('/cases?action=timeout'));
    const row = page.locator(`tr[data-case="${number}"]`);
    await expect(row.textContent()).resolves.toContain(reason);
    const actions = await page.locator('tr[data-case] td:nth-child(2)').allTextContents();
    expect(new Set(actions)).toEqual(new Set(['timeout']));
    await expectCleanPage(page, errors);
    // Keyboard: type a member id and press Enter.
    await page.getByLabel('Member id').fill(PLAIN_MEMBER);
    await page.getByLabel('Member id').press('Enter');
    await page.waitForURL(new RegExp(`target=${PLAIN_MEMBER}`));
    const listed = await ok<{ cases: Array<{ number: number }> }>(
      'GET',
      `/api/v1/servers/${g}/cases?action=timeout&target=${PLAIN_MEMBER}`,
    );
    const expected = JSON.stringify(listed.cases.map((c) => c.number));
    await waitFor(
      () => page.locator('tr[data-case]').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-case')))),
      (shown) => JSON.stringify(shown) === expected,
    );

    await row.getByRole('link', { name: record.user.name }).click();
    await page.getByRole('heading', { name: record.user.name }).waitFor();
    await expect(page.locator(`tr[data-case="${number}"]`).textContent()).resolves.toContain(reason);
    await expectCleanPage(page, errors);
  });

  /**
   * Makes the next request `method` `path` reach the service but its answer never reach the page (a dropped
   * connection); resolves to the `Idempotency-Key` of every request to it, the dropped one first.
   */
  async function dropFirstAnswer(method: string, path: RegExp): Promise<() => Array<string | undefined>> {
    const keys: Array<string | undefined> = [];
    page.on('request', (req) => {
      if (req.method() === method && path.test(new URL(req.url()).pathname))
        keys.push(req.headers()['idempotency-key']);
    });
    await page.route(
      path,
      async (route) => {
        if (route.request().method() !== method) return route.fallback();
        await route.fetch();
        await route.abort('connectionreset');
      },
      { times: 1 },
    );
    return () => keys;
  }

  it('sends a case with an Idempotency-Key and, retried after a lost answer, creates it once', async () => {
    const reason = `Lost answer ${word}`;
    await page.goto(url('/cases/new'));
    await page.getByLabel(/^Member/).fill(PLAIN_MEMBER);
    await page.getByTestId('suggestion').waitFor();
    await page.getByLabel('Action').selectOption('warn');
    await page.getByLabel('Reason').fill(reason);
    const keys = await dropFirstAnswer('POST', new RegExp(`/api/v1/servers/${g}/cases$`));
    await page.getByRole('button', { name: 'Create case' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Network error/);
    await page.getByRole('button', { name: 'Create case' }).click();
    await page.waitForURL(/\/cases\/\d+$/);
    const [first, retry] = keys();
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(retry).toBe(first);
    const listed = await ok<{ cases: Array<{ number: number; reason: string }> }>(
      'GET',
      `/api/v1/servers/${g}/cases?target=${PLAIN_MEMBER}`,
    );
    const made = listed.cases.filter((c) => c.reason === reason);
    expect(made.map((c) => c.number)).toEqual([Number(page.url().split('/').pop())]);
    await expectCleanPage(page, errors, [/ERR_CONNECTION_RESET/]);
  });

  it('shows a superseded case with the case now live, a case taken in the platform client, and a hierarchy refusal with its reason', async () => {
    const first = await ok<{ number: number }>('POST', `/api/v1/servers/${g}/cases`, {
      target: PLAIN_MEMBER,
      action: 'timeout',
      duration: 3600,
      reason: `First timeout ${word}`,
    });
    // The moderator times the member out again in the platform's own client: a case of its own supersedes the first.
    const clientReason = `Client timeout ${word}`;
    await sys.fake
      .actAsUser(USERS.moderator)
      .editMember(
        g,
        PLAIN_MEMBER,
        { communication_disabled_until: new Date(Date.now() + 7_200_000).toISOString() },
        clientReason,
      );
    const listed = await waitFor(
      () =>
        ok<{ cases: Array<{ number: number; reason: string; status: string }> }>(
          'GET',
          `/api/v1/servers/${g}/cases?target=${PLAIN_MEMBER}&action=timeout`,
        ),
      (r) =>
        r.cases.some((c) => c.reason === clientReason) &&
        r.cases.find((c) => c.number === first.number)?.status === 'superseded',
      20_000,
    );
    const taken = listed.cases.find((c) => c.reason === clientReason)!.number;

    await page.goto(url(`/cases/${first.number}`));
    await expect(page.locator('.facts .badge').textContent()).resolves.toBe('superseded');
    const newer = page.getByRole('link', { name: `Case #${taken}` });
    await newer.waitFor();
    await expectCleanPage(page, errors);
    await newer.click();
    await page.getByRole('heading', { name: `Case #${taken}` }).waitFor();
    await page.locator('.case-reason', { hasText: clientReason }).waitFor();
    await expect(page.locator('.facts').textContent()).resolves.toContain("in the platform's own client");
    await expectCleanPage(page, errors);

    // The admin's highest role is above the bot's: the case is refused before any platform call, and says why.
    await page.goto(url('/cases/new'));
    await page.getByLabel(/^Member/).fill(USERS.admin);
    await page.getByTestId('suggestion').waitFor();
    await page.getByLabel('Action').selectOption('kick');
    await page.getByLabel('Reason').fill(`Hierarchy ${word}`);
    await page.getByRole('button', { name: 'Create case' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Refused by the role hierarchy/);
    expect(page.url()).toMatch(/\/cases\/new$/);
    const admin = await ok<{ cases: Array<{ reason: string }> }>(
      'GET',
      `/api/v1/servers/${g}/cases?target=${USERS.admin}`,
    );
    expect(admin.cases.filter((c) => c.reason === `Hierarchy ${word}`)).toEqual([]);
    await expectCleanPage(page, errors, [/status of 403/]);
  });

  it('closes a ticket and shows its transcript', async () => {
    await page.goto(url('/tickets'));
    await page.locator(`tr[data-ticket="${ticketNumber}"]`).getByRole('link').click();
    await page.getByRole('heading', { name: `Ticket #${ticketNumber}` }).waitFor();
    await expect(page.locator('.transcript').textContent()).resolves.toContain(`my order never arrived ${word}`);
    await expectCleanPage(page, errors);
    await page.getByLabel('Close reason (optional)').fill('Refund sent');
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    await expect(page.locator('.facts').textContent()).resolves.toContain('Refund sent');
    const after = await ok<{ ticket: { status: string; closeReason: string } }>(
      'GET',
      `/api/v1/servers/${g}/tickets/${ticketNumber}`,
    );
    expect(after.ticket).toMatchObject({ status: 'closed', closeReason: 'Refund sent' });
    await expect(page.locator('.facts .badge').textContent()).resolves.toBe('closed');
    await expectCleanPage(page, errors);
  });

  it('reopens a ticket with an Idempotency-Key: a retry after a lost answer reopens it, not 409', async () => {
    await page.goto(url(`/tickets/${ticketNumber}`));
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    const keys = await dropFirstAnswer('POST', new RegExp(`/tickets/${ticketNumber}/reopen$`));
    await page.getByRole('button', { name: 'Reopen' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Network error/);
    await page.getByRole('button', { name: 'Reopen' }).click();
    await page.getByRole('button', { name: 'Close' }).waitFor();
    const [first, retry] = keys();
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry).toBe(first);
    const after = await ok<{ ticket: { status: string } }>('GET', `/api/v1/servers/${g}/tickets/${ticketNumber}`);
    expect(after.ticket.status).toBe('open');
    await expect(page.locator('.facts .badge').textContent()).resolves.toBe('open');
    await expectCleanPage(page, errors, [/ERR_CONNECTION_RESET/]);
  });

  it("shows a ticket's newest 50 messages and loads the older ones on demand", async () => {
    for (let i = 1; i <= 55; i++) await postMessage(ticketThread, `follow-up ${i} ${word}`);
    const ticketPath = `/api/v1/servers/${g}/tickets/${ticketNumber}`;
    const all = await waitFor(
      () => ok<{ messages: Array<{ content: string }> }>('GET', `${ticketPath}?limit=100`),
      (r) => r.messages.filter((m) => m.content.startsWith('follow-up ')).length === 55,
      20_000,
    );
    await page.goto(url(`/tickets/${ticketNumber}`));
    await page.getByText(`follow-up 55 ${word}`).waitFor();
    const first = `my order never arrived ${word}`;
    expect(await page.locator('.transcript > li').count()).toBe(50);
    await expect(page.locator('.transcript').textContent()).resolves.not.toContain(first);
    await page.getByRole('button', { name: 'Load older messages' }).click();
    await page.locator('.transcript', { hasText: first }).waitFor();
    expect(await page.locator('.transcript > li').count()).toBe(all.messages.length);
    await expect(page.getByRole('button', { name: 'Load older messages' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Whole transcript' }).getAttribute('href')).resolves.toBe(
      `${ticketPath}/transcript`,
    );
    await expectCleanPage(page, errors);
  });

  it('adds a ticket type with a modal question', async () => {
    await page.goto(url('/tickets'));
    await page.getByRole('link', { name: 'Settings and types' }).click();
    await page.getByRole('heading', { name: 'Ticket settings' }).waitFor();
    await page.getByLabel('Button label').fill('Billing');
    await page.getByRole('button', { name: 'Add a question' }).click();
    await page.getByLabel('Question', { exact: true }).fill('Order number');
    await page.getByRole('button', { name: 'Add type' }).click();
    await page.getByRole('status').filter({ hasText: 'Type added.' }).waitFor();
    const { types } = await ok<{ types: Array<{ id: string; name: string; questions: Array<{ label: string }> }> }>(
      'GET',
      `/api/v1/servers/${g}/tickets/settings`,
    );
    const billing = types.find((t) => t.name === 'Billing')!;
    expect(billing.questions.map((q) => q.label)).toEqual(['Order number']);
    await expect(page.locator(`li[data-type="${billing.id}"]`).textContent()).resolves.toContain('1 question');
    await expectCleanPage(page, errors);
  });

  it('changes log settings with channel pickers and shows them after a reload', async () => {
    await page.goto(url('/logs'));
    const dest = page.getByLabel('Message edits and deletions');
    await dest.selectOption(FIXTURE_IDS.channels.general);
    const bots = page.getByLabel('Ignore messages of bots');
    const ignoreBots = !(await bots.isChecked());
    await bots.setChecked(ignoreBots);
    await page.getByRole('button', { name: 'Save log settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await expect(page.getByLabel('Message edits and deletions').inputValue()).resolves.toBe(
      FIXTURE_IDS.channels.general,
    );
    await expect(page.getByLabel('Ignore messages of bots').isChecked()).resolves.toBe(ignoreBots);
    const stored = await ok<{ settings: { messagesChannel: string; ignoreBots: boolean } }>(
      'GET',
      `/api/v1/servers/${g}/logs`,
    );
    expect(stored.settings).toMatchObject({ messagesChannel: FIXTURE_IDS.channels.general, ignoreBots });
    await expectCleanPage(page, errors);
  });

  it('searches messages', async () => {
    await page.goto(url('/messages'));
    await page.getByLabel('Text').fill(word);
    await page.getByRole('button', { name: 'Search' }).click();
    const results = page.locator('.results > li');
    await results.first().waitFor();
    expect(await results.allTextContents()).toEqual([expect.stringContaining(`hello from the hall ${word}`)]);
    await expectCleanPage(page, errors);
  });

  it('undoes the timeout from the journal', async () => {
    await page.goto(url('/journal'));
    await page.getByLabel('Kind').selectOption('member_timeout');
    const events = await waitFor(
      () =>
        ownerApi<{ events: Array<{ id: string; target: string }> }>(
          'GET',
          `/api/v1/servers/${g}/journal?kind=member_timeout&target=${PLAIN_MEMBER}`,
        ),
      (r) => r.status === 200 && r.body.events.length > 0,
      20_000,
    );
    const event = events.body.events[0]!.id;
    const item = page.locator(`li[data-event="${event}"]`);
    await waitFor(
      async () => {
        await page.getByLabel('Kind').selectOption('');
        await page.getByLabel('Kind').selectOption('member_timeout');
        return item.isVisible();
      },
      (v) => v,
      10_000,
    );
    await item.getByRole('button', { name: /^Undo/ }).click();
    await item.locator('.badge', { hasText: 'undone' }).waitFor();
    const after = await ok<{ events: Array<{ id: string; undoneAt: string | null }> }>(
      'GET',
      `/api/v1/servers/${g}/journal?kind=member_timeout&target=${PLAIN_MEMBER}`,
    );
    expect(after.events.find((e) => e.id === event)?.undoneAt).toEqual(expect.any(String));
    await expectCleanPage(page, errors);
  });

  it('creates a pack and previews an item deletion before anything is deleted', async () => {
    await page.goto(url('/packs'));
    await page.getByLabel('New pack name').fill('Lantern emoji');
    await page.getByRole('button', { name: 'Create pack' }).click();
    await page.getByRole('status').filter({ hasText: 'Pack Lantern emoji created.' }).waitFor();
    const packs = await ok<{ packs: Array<{ name: string }>; loose: Array<{ id: string; name: string }> }>(
      'GET',
      `/api/v1/servers/${g}/packs`,
    );
    expect(packs.packs.map((p) => p.name)).toContain('Lantern emoji');
    await expect(page.locator('ol.list').textContent()).resolves.toContain('Lantern emoji');
    await expectCleanPage(page, errors);
    // The fixture guild's own emoji are in no pack.
    expect(packs.loose.length).toBeGreaterThan(0);
    const item = packs.loose[0]!;
    await page.getByLabel(item.name, { exact: false }).first().check();
    await page.getByRole('button', { name: 'Delete selected…' }).click();
    const previewBox = page.getByRole('region', { name: /^Delete 1 item/ });
    await previewBox.waitFor();
    expect(await previewBox.locator('li').count()).toBeGreaterThan(0);
    await previewBox.getByRole('button', { name: 'Cancel' }).click();
    const after = await ok<{ loose: Array<{ id: string }> }>('GET', `/api/v1/servers/${g}/packs`);
    expect(after.loose.map((i) => i.id)).toContain(item.id);
    await expectCleanPage(page, errors);
  });

  it('orders a pack by drag and drop and by keyboard, and previews deleting one of its items', async () => {
    const before = await ok<{
      packs: Array<{ pack: string; name: string }>;
      loose: Array<{ id: string; kind: string }>;
    }>('GET', `/api/v1/servers/${g}/packs`);
    const pack = before.packs.find((p) => p.name === 'Lantern emoji')!;
    const ids = before.loose
      .filter((i) => i.kind !== 'sticker')
      .slice(0, 3)
      .map((i) => i.id);
    expect(ids).toHaveLength(3);
    const added = await ownerApi('POST', `/api/v1/servers/${g}/packs/${pack.pack}/items`, { ids });
    expect(added.status).toBe(202);
    const contents = async () => {
      const view = await ok<{ packs: Array<{ pack: string; contents: Array<{ id: string }> }> }>(
        'GET',
        `/api/v1/servers/${g}/packs`,
      );
      return view.packs.find((p) => p.pack === pack.pack)!.contents.map((i) => i.id);
    };
    const list = page.getByRole('list', { name: 'Items of Lantern emoji' });
    const shown = () =>
      list.locator('li[data-item]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-item')));
    await page.goto(url('/packs'));
    await list.locator('li[data-item]').first().waitFor();
    expect(await shown()).toEqual(await contents());
    expect(await shown()).toEqual(ids);
    await expectCleanPage(page, errors);

    // Keyboard: focus "Move down" of the first item and press Enter.
    await list
      .locator(`li[data-item="${ids[0]}"]`)
      .getByRole('button', { name: /^Move down/ })
      .press('Enter');
    await page.getByRole('status').filter({ hasText: 'Order of Lantern emoji saved.' }).waitFor();
    await waitFor(contents, (order) => JSON.stringify(order) === JSON.stringify([ids[1], ids[0], ids[2]]));
    await waitFor(shown, (order) => JSON.stringify(order) === JSON.stringify([ids[1], ids[0], ids[2]]));

    // Drag the last item onto the first.
    await list.locator(`li[data-item="${ids[2]}"]`).dragTo(list.locator(`li[data-item="${ids[1]}"]`));
    const dropped = [ids[2], ids[1], ids[0]];
    await waitFor(contents, (order) => JSON.stringify(order) === JSON.stringify(dropped));
    await waitFor(shown, (order) => JSON.stringify(order) === JSON.stringify(dropped));
    await expectCleanPage(page, errors);

    // Delete shows the preview first; cancelling deletes nothing.
    await list
      .locator(`li[data-item="${ids[0]}"]`)
      .getByRole('button', { name: /^Delete/ })
      .click();
    const previewBox = page.getByRole('region', { name: /^Delete .* from every guild\?$/ });
    await previewBox.waitFor();
    await expect(previewBox.locator('li').first().textContent()).resolves.toContain(ids[0]);
    await previewBox.getByRole('button', { name: 'Cancel' }).click();
    await previewBox.waitFor({ state: 'detached' });
    expect(await contents()).toEqual(dropped);
    await expectCleanPage(page, errors);
  });

  it('adds a staff role with caps, shows it as the API lists it, and removes it', async () => {
    const role = FIXTURE_IDS.roles.regular;
    await page.goto(url('/staff'));
    await page.getByRole('heading', { name: 'Staff roles' }).waitFor();
    await page.locator('li[data-role]').first().waitFor();
    const listed = await ok<{ roles: Array<{ role: string }> }>('GET', `/api/v1/servers/${g}/staff`);
    const shownRoles = () =>
      page.locator('li[data-role]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-role')));
    expect(await shownRoles()).toEqual(listed.roles.map((r) => r.role));
    await expectCleanPage(page, errors);

    await page.getByLabel('Role', { exact: true }).selectOption(role);
    await page.getByRole('button', { name: 'Choose caps' }).click();
    await page.getByLabel(/^journal\.read/).check();
    await page.getByLabel(/^messages\.search/).check();
    await expectCleanPage(page, errors);
    await page.getByRole('button', { name: 'Save caps' }).click();
    await page.getByRole('status').filter({ hasText: 'Regulars saved.' }).waitFor();
    const after = await ok<{ roles: Array<{ role: string; caps: string[] }> }>('GET', `/api/v1/servers/${g}/staff`);
    expect(after.roles.find((r) => r.role === role)?.caps).toEqual(['messages.search', 'journal.read']);
    const item = page.locator(`li[data-role="${role}"]`);
    await expect(item.locator('.caps').textContent()).resolves.toBe('messages.search, journal.read');
    expect(await shownRoles()).toEqual(after.roles.map((r) => r.role));

    await item.getByRole('button', { name: /^Remove/ }).click();
    await page.getByRole('status').filter({ hasText: 'Regulars is no longer staff.' }).waitFor();
    const removed = await ok<{ roles: Array<{ role: string }> }>('GET', `/api/v1/servers/${g}/staff`);
    expect(removed.roles.map((r) => r.role)).not.toContain(role);
    // The status is shown when the PUT answers; the list reloads after it.
    await item.waitFor({ state: 'detached' });
    expect(await shownRoles()).toEqual(removed.roles.map((r) => r.role));
    await expectCleanPage(page, errors);
  });

  it('manages a forum with statuses and sets a post status', async () => {
    const { idea, planned } = FIXTURE_IDS.tags;
    await page.goto(url('/forums'));
    await page.getByRole('heading', { name: /^Statuses of #suggestions/ }).waitFor();
    await expectCleanPage(page, errors);
    await page.getByRole('button', { name: 'Add a status' }).click();
    await page.getByRole('button', { name: 'Add a status' }).click();
    await page.getByLabel('Tag').nth(0).selectOption(idea);
    await page.getByLabel('Tag').nth(1).selectOption(planned);
    await page.getByLabel('Reply posted in the post').nth(1).fill('Planned for the next release.');
    await page.getByLabel('Lock the post').nth(1).check();
    await page.getByLabel('Archive after').nth(1).selectOption('1440');
    await page.getByRole('button', { name: 'Save statuses' }).click();
    await page.getByRole('status').filter({ hasText: 'Statuses saved.' }).waitFor();
    const { forums } = await ok<{
      forums: Array<{ forum: string; managed: boolean; statuses: Array<{ tag: string; reply: string }> }>;
    }>('GET', `/api/v1/servers/${g}/forums`);
    const forum = forums.find((f) => f.forum === FIXTURE_IDS.channels.suggestions)!;
    expect(forum.managed).toBe(true);
    expect(forum.statuses).toEqual([
      { tag: idea, reply: '', rewardRole: null, lock: false, archiveAfter: 0 },
      { tag: planned, reply: 'Planned for the next release.', rewardRole: null, lock: true, archiveAfter: 1440 },
    ]);
    await expect(
      page.locator('fieldset[data-status]').evaluateAll((fs) => fs.map((f) => f.getAttribute('data-status'))),
    ).resolves.toEqual([idea, planned]);

    const posts = await waitFor(
      () =>
        ok<{ posts: Array<{ thread: string; title: string }> }>(
          'GET',
          `/api/v1/servers/${g}/forums/${forum.forum}/posts`,
        ),
      (r) => r.posts.length > 0,
      20_000,
    );
    const shownPosts = await waitFor(
      () => page.locator('tr[data-post]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-post'))),
      (rows) => rows.length > 0,
    );
    expect(shownPosts).toEqual(posts.posts.map((p) => p.thread));
    await expectCleanPage(page, errors);
    const post = posts.posts[0]!;
    await page.getByLabel(`Status of ${post.title}`).selectOption(planned);
    await page
      .getByRole('status')
      .filter({ hasText: `${post.title}: Planned.` })
      .waitFor();
    const after = await ok<{ posts: Array<{ thread: string; tags: string[] }> }>(
      'GET',
      `/api/v1/servers/${g}/forums/${forum.forum}/posts`,
    );
    expect(after.posts.find((p) => p.thread === post.thread)?.tags).toContain(planned);
    await expect(page.getByLabel(`Status of ${post.title}`).inputValue()).resolves.toBe(planned);
    await expectCleanPage(page, errors);
  });

  it('edits the ticket blacklist one member at a time: a bad id refused, another change and unsaved edits kept', async () => {
    const blacklist = async () =>
      [
        ...(await ok<{ settings: { blacklist: string[] } }>('GET', `/api/v1/servers/${g}/tickets/settings`)).settings
          .blacklist,
      ].sort();
    await page.goto(url('/tickets/settings'));
    await page.getByRole('heading', { name: 'Blacklist' }).waitFor();
    const welcome = page.getByLabel(/^Welcome message/);
    const unsaved = `Welcome {user}, not saved yet ${word}`;
    await welcome.fill(unsaved);

    await page.getByLabel('Member id').fill('not-a-member');
    await page.getByRole('button', { name: 'Blacklist', exact: true }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('params.member');
    await expectCleanPage(page, errors, [/status of 400/]);
    errors.length = 0;
    expect(await blacklist()).toEqual([]);

    // Another staff member blacklists someone while this page shows the list without them: both entries stay.
    const other = newSnowflake();
    await ok('PUT', `/api/v1/servers/${g}/tickets/blacklist/${other}`);
    await page.getByLabel('Member id').fill(PLAIN_MEMBER);
    await page.getByRole('button', { name: 'Blacklist', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${PLAIN_MEMBER} blacklisted.` })
      .waitFor();
    expect(await blacklist()).toEqual([other, PLAIN_MEMBER].sort());
    const entry = page.locator(`li[data-member="${PLAIN_MEMBER}"]`);
    await entry.waitFor();
    await page.locator(`li[data-member="${other}"]`).waitFor();
    await expectCleanPage(page, errors);

    await entry.getByRole('button', { name: /^Remove/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${PLAIN_MEMBER} may open tickets again.` })
      .waitFor();
    expect(await blacklist()).toEqual([other]);
    // the list shown is the API's answer to the change (fails after the timeout otherwise)
    await entry.waitFor({ state: 'detached' });
    // the welcome text edited before the blacklist changes is still there, and still not saved
    await expect(welcome.inputValue()).resolves.toBe(unsaved);
    const stored = await ok<{ settings: { welcomeText: string } }>('GET', `/api/v1/servers/${g}/tickets/settings`);
    expect(stored.settings.welcomeText).not.toBe(unsaved);
    await expectCleanPage(page, errors);
    await ok('DELETE', `/api/v1/servers/${g}/tickets/blacklist/${other}`);
  });

  it('shows a member with one cap only what they may', async () => {
    const context = await contextAs(chromium, sys, USERS.moderator);
    const mod = await context.newPage();
    const modErrors = collectPageErrors(mod);
    await mod.goto(`${sys.gatewayUrl}/`);
    await mod.getByRole('link', { name: 'Sign in with Discord' }).click();
    const guild = mod.getByRole('link', { name: /Lantern Hall/ });
    await expect(guild.textContent()).resolves.toContain('1 permission');
    await guild.click();
    await mod.getByRole('heading', { name: 'Cases' }).waitFor();
    const nav = await mod.getByRole('navigation', { name: 'Guild pages' }).getByRole('link').allTextContents();
    expect(nav).toEqual(['Cases']);
    await expect(mod.getByRole('link', { name: 'New case' }).count()).resolves.toBe(0);
    await expectCleanPage(mod, modErrors);

    await mod.goto(url('/tickets'));
    await expect(mod.getByRole('alert').textContent()).resolves.toContain('tickets.read');
    await expectCleanPage(mod, modErrors, [/status of 403/]);
    await context.close();
  });
});
