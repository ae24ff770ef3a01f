/**
 * The platform's text and the journal as people read them, in a real browser (issue 33): a ticket's transcript and a
 * message search result show bold text, a user mention by name (an unknown one as `@unknown-user` with its id on
 * hover), a role and a channel mention by name, a custom emoji image from the platform CDN and a timestamp, never the
 * platform's source (`<@`, `<#`, `**`); the journal says a message edit in words and its detail panel shows the
 * content before and after; a case is created by picking the member by name (members search). Each step checks the page against the API's answer, no console error and axe-core.
 * Skips, printing why, when Chromium is not installed.
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
import type { Browser, Locator, Page } from 'playwright-core';
import { PLAIN_MEMBER } from '../e2e/support/securitySetup';

const unavailable = browserUnavailable();
if (unavailable) process.stdout.write(`platform text browser tests skipped: ${unavailable}\n`);
const describeBrowser = unavailable ? describe.skip : describe;

let sys: System;
let chromium: Browser;
let bus: EventBus;
let ownerCookie: string;
let g: string;
const word = `glyphword${Date.now().toString(36)}`;
const EMOJI = '112233445566778899';
const UNKNOWN_USER = '998877665544332211';
const AT = 1_893_456_000; // 2030-01-01T00:00:00Z
let ticketNumber: number;
let generalMessage: { id: string; timestamp: string };

/** The platform's markup of every rendered kind, with `word` to find it. */
function markup(): string {
  return (
    `**Urgent** ${word} <@${PLAIN_MEMBER}> and <@!${UNKNOWN_USER}> ask <@&${FIXTURE_IDS.roles.moderator}> in ` +
    `<#${FIXTURE_IDS.channels.general}> <:lantern:${EMOJI}> by <t:${AT}:D>`
  );
}

/** The API as the owner (cookie + the gateway's own origin, which the dashboard runs on). */
async function ok<T>(method: string, path: string, body?: unknown): Promise<T> {
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
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const author = { id: PLAIN_MEMBER, username: 'plain', discriminator: '0', global_name: null, avatar: null };

/** Publishes a message (or, with `edited`, its edit) by the plain member as the platform's gateway would. */
async function dispatchMessage(
  type: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE',
  message: { id: string; channel: string; content: string; timestamp: string },
): Promise<void> {
  const d = {
    ...messageCreate({
      id: message.id,
      channel_id: message.channel,
      guild_id: g,
      author,
      content: message.content,
      timestamp: message.timestamp,
    }),
    ...(type === 'MESSAGE_UPDATE' ? { edited_timestamp: new Date().toISOString() } : {}),
  };
  await bus.publish(dispatchSubject(type, d), { t: type, s: 1, op: 0, d }, randomUUID());
}

async function postMessage(channel: string, content: string): Promise<{ id: string; timestamp: string }> {
  const at = new Date();
  const message = { id: newSnowflake(at), channel, content, timestamp: at.toISOString() };
  await dispatchMessage('MESSAGE_CREATE', message);
  return message;
}

beforeAll(async () => {
  if (unavailable) return;
  sys = await startSystem({ dashboardAtGateway: true });
  g = sys.guild;
  bus = await EventBus.connect({
    url: testNatsUrl(),
    name: 'browser-platform-text',
    namespace: sys.namespace,
    logger: createLogger('browser', 'silent'),
  });
  ownerCookie = await sys.login(USERS.owner);
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
  await postMessage(ticket.thread, markup());
  generalMessage = await postMessage(FIXTURE_IDS.channels.general, markup());
  await waitFor(
    () => ok<{ messages: unknown[] }>('GET', `/api/v1/servers/${g}/messages?q=${word}`),
    (r) => r.messages.length === 1,
    20_000,
  );
  await waitFor(
    () => ok<{ messages: Array<{ content: string }> }>('GET', `/api/v1/servers/${g}/tickets/${ticketNumber}`),
    (r) => r.messages.some((m) => m.content.includes(word)),
    20_000,
  );
  chromium = await launchChromium();
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  await bus?.close();
  await sys?.stop();
});

describeBrowser('dashboard: the platform text and the journal in words', () => {
  let page: Page;
  let errors: string[];
  let names: { opener: string; role: string; channel: string };

  beforeAll(async () => {
    if (unavailable) return;
    const context = await contextAs(chromium, sys, USERS.owner);
    page = await context.newPage();
    errors = collectPageErrors(page);
    await page.goto(`${sys.gatewayUrl}/`);
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByRole('heading', { name: 'Your guilds' }).waitFor();
    const structure = await ok<{
      roles: Array<{ id: string; name: string }>;
      channels: Array<{ id: string; name: string }>;
    }>('GET', `/api/v1/servers/${g}/structure`);
    const ticket = await ok<{ ticket: { openerName: string } }>('GET', `/api/v1/servers/${g}/tickets/${ticketNumber}`);
    names = {
      opener: ticket.ticket.openerName,
      role: structure.roles.find((r) => r.id === FIXTURE_IDS.roles.moderator)!.name,
      channel: structure.channels.find((c) => c.id === FIXTURE_IDS.channels.general)!.name,
    };
  });

  const expectCleanPage = async () => {
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  };

  /** The rendered message: bold, names for the mentions, the emoji image loaded from the CDN, no markup left. */
  const expectRendered = async (message: Locator, member: string) => {
    const text = (await message.textContent()) ?? '';
    expect(text).not.toMatch(/<@|<#|<:|<t:|\*\*/);
    await expect(message.locator('strong').first().textContent()).resolves.toBe('Urgent');
    const mentions = await message.locator('.mention').allTextContents();
    expect(mentions).toEqual([`@${member}`, '@unknown-user', `@${names.role}`, `#${names.channel}`]);
    await expect(message.locator('.mention', { hasText: '@unknown-user' }).getAttribute('title')).resolves.toBe(
      UNKNOWN_USER,
    );
    const emoji = message.getByRole('img', { name: ':lantern:' });
    expect(await emoji.getAttribute('src')).toMatch(new RegExp(`/emojis/${EMOJI}\\.png$`));
    await waitFor(
      () => emoji.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
      (loaded) => loaded,
    );
    expect(await message.locator('time').getAttribute('datetime')).toBe(new Date(AT * 1000).toISOString());
  };

  it("renders a ticket's transcript as the platform does", async () => {
    await page.goto(`${sys.gatewayUrl}/guilds/${g}/tickets/${ticketNumber}`);
    const message = page.locator('.transcript li', { hasText: word }).locator('.message-content');
    await message.waitFor();
    await waitFor(
      () => message.locator('.mention').last().textContent(),
      (name) => name === `#${names.channel}`,
    );
    await expectRendered(message, names.opener);
    await expectCleanPage();
  });

  it('renders a message search result as the platform does', async () => {
    await page.goto(`${sys.gatewayUrl}/guilds/${g}/messages`);
    const found = await ok<{ messages: Array<{ authorName: string }> }>(
      'GET',
      `/api/v1/servers/${g}/messages?q=${word}`,
    );
    await page.getByLabel('Text', { exact: true }).fill(word);
    await page.getByRole('button', { name: 'Search' }).click();
    const message = page.locator('.results li', { hasText: word }).locator('.message-content').first();
    await message.waitFor();
    await waitFor(
      () => message.locator('.mention').last().textContent(),
      (name) => name === `#${names.channel}`,
    );
    await expectRendered(message, found.messages[0]!.authorName);
    await expectCleanPage();
  });

  it('says a message edit in words in the journal and shows its content before and after', async () => {
    const edited = `**Fixed** ${word} now in <#${FIXTURE_IDS.channels.general}>`;
    await dispatchMessage('MESSAGE_UPDATE', {
      id: generalMessage.id,
      channel: FIXTURE_IDS.channels.general,
      content: edited,
      timestamp: generalMessage.timestamp,
    });
    const events = await waitFor(
      () =>
        ok<{ events: Array<{ id: string; actorName: string | null }> }>(
          'GET',
          `/api/v1/servers/${g}/journal?kind=message_edit&channel=${FIXTURE_IDS.channels.general}`,
        ),
      (r) => r.events.length === 1,
      20_000,
    );
    const event = events.events[0]!;
    await page.goto(`${sys.gatewayUrl}/guilds/${g}/journal`);
    await page.getByLabel('Kind').selectOption('message_edit');
    await page.getByLabel('Channel').selectOption(FIXTURE_IDS.channels.general);
    await waitFor(
      async () => new URL(page.url()).searchParams.get('channel'),
      (channel) => channel === FIXTURE_IDS.channels.general,
    );
    const line = page.locator(`li[data-event="${event.id}"]`);
    await line.waitFor();
    // channel names come with the guild's structure, which may arrive after the line (shown #unknown-channel until then)
    const said = `${event.actorName} edited a message in #${names.channel}`;
    await line.locator('.event-text', { hasText: said }).waitFor();
    await expect(line.locator('.event-text').textContent()).resolves.toBe(said);
    await line.getByText('Details').click();
    const row = line.locator('tr[data-field="content"]');
    await row.waitFor();
    const before = row.locator('del');
    const after = row.locator('ins');
    await expect(before.locator('strong').first().textContent()).resolves.toBe('Urgent');
    await expect(after.locator('strong').first().textContent()).resolves.toBe('Fixed');
    await expect(after.locator('.mention').textContent()).resolves.toBe(`#${names.channel}`);
    expect(await row.textContent()).not.toMatch(/<@|<#|\*\*/);
    await expectCleanPage();
  });

  it('creates a case by picking the member by name', async () => {
    const username = sys.fake.guild(g)!.members.get(PLAIN_MEMBER)!.user.username;
    const typed = username.slice(0, 3);
    const reason = `picked by name ${word}`;
    await page.goto(`${sys.gatewayUrl}/guilds/${g}/cases/new`);
    await page.getByLabel('Find the member by name').fill(typed);
    const matches = page.getByRole('list', { name: `Members matching ${typed}` });
    await matches.getByRole('button', { name: new RegExp(`@${username} \\(pick\\)$`) }).click();
    await expect(page.getByLabel('Member (id or pick a recent member)').inputValue()).resolves.toBe(PLAIN_MEMBER);
    await page.locator('#target-info strong').waitFor();
    await page.getByLabel('Reason').fill(reason);
    await page.getByRole('button', { name: 'Create case' }).click();
    await page.waitForURL(/\/cases\/\d+$/);
    const cases = await ok<{ cases: Array<{ target: string; reason: string }> }>(
      'GET',
      `/api/v1/servers/${g}/cases?target=${PLAIN_MEMBER}`,
    );
    expect(cases.cases.filter((c) => c.reason === reason)).toEqual([
      expect.objectContaining({ target: PLAIN_MEMBER, reason }),
    ]);
    await expectCleanPage();
  });
});
