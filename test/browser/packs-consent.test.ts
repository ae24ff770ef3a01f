/**
 * The Packs page's consent between guilds in a real browser (issue 29): the owner guild sees another guild's pending
 * request to contribute, approves it, revokes it and makes the pack private; each click is checked against what the
 * API answers afterwards, with no console error and no accessibility violation. Skips, printing why, when Chromium is
 * not installed.
 */
import {
  axeViolations,
  browserUnavailable,
  collectPageErrors,
  contextAs,
  launchChromium,
  type System,
  startSystem,
  USERS,
  waitFor,
} from '@guildhall/testkit';
import type { Browser, Page } from 'playwright-core';

const unavailable = browserUnavailable();
if (unavailable) process.stdout.write(`packs browser tests skipped: ${unavailable}\n`);
const describeBrowser = unavailable ? describe.skip : describe;

let sys: System;
let chromium: Browser;
const cookies: Record<string, string> = {};
let pack = '';

/** The API as `user` (cookie + the gateway's own origin, which the dashboard runs on). */
async function apiAs<T>(user: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sys.gatewayUrl}${path}`, {
    method,
    headers: {
      cookie: `service_session=${cookies[user]}`,
      origin: sys.gatewayUrl,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

interface OwnedPack {
  pack: string;
  private: boolean;
  guests: Array<{ guild: string; contribution: string; invited: boolean }>;
}

/** The owner's view of the pack, as the API answers it. */
async function ownedPack(): Promise<OwnedPack> {
  const view = await apiAs<{ packs: OwnedPack[] }>(USERS.owner, 'GET', `/api/v1/servers/${sys.guild}/packs`);
  return view.packs.find((p) => p.pack === pack)!;
}

beforeAll(async () => {
  if (unavailable) return;
  sys = await startSystem({ dashboardAtGateway: true });
  cookies[USERS.owner] = await sys.login(USERS.owner);
  cookies[sys.otherGuild.owner] = await sys.login(sys.otherGuild.owner);
  const g = `/api/v1/servers/${sys.guild}`;
  pack = (await apiAs<{ id: string }>(USERS.owner, 'POST', `${g}/packs`, { name: 'Lantern glyphs' })).id;
  const other = `/api/v1/servers/${sys.otherGuild.id}`;
  await apiAs(sys.otherGuild.owner, 'PUT', `${other}/packs/${pack}/subscription`, { contributes: true });
  chromium = await launchChromium();
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  await sys?.stop();
});

describeBrowser('packs: consent between guilds', () => {
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    if (unavailable) return;
    const context = await contextAs(chromium, sys, USERS.owner);
    page = await context.newPage();
    errors = collectPageErrors(page);
    await page.goto(`${sys.gatewayUrl}/`);
    await page.getByRole('link', { name: 'Sign in with Discord' }).click();
    await page.getByRole('heading', { name: 'Your guilds' }).waitFor();
  });

  const expectCleanPage = async () => {
    expect(await axeViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  };

  it('when another guild asks to contribute, then the owner approves, revokes it and makes the pack private from the page', async () => {
    const other = sys.otherGuild.id;
    await page.goto(`${sys.gatewayUrl}/guilds/${sys.guild}/packs`);
    const guests = page.getByRole('region', { name: 'Guests of Lantern glyphs' });
    const row = guests.locator(`li[data-guest="${other}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('asks to contribute');
    await expectCleanPage();

    await row.getByRole('button', { name: /^Approve/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Guild ${other} may contribute to Lantern glyphs.` })
      .waitFor();
    expect((await ownedPack()).guests).toContainEqual(
      expect.objectContaining({ guild: other, contribution: 'granted' }),
    );
    await waitFor(
      () => row.textContent(),
      (text) => !!text?.includes('contributes'),
    );

    await row.getByRole('button', { name: /^Revoke/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Guild ${other} may no longer contribute to Lantern glyphs.` })
      .waitFor();
    expect((await ownedPack()).guests).toContainEqual(
      expect.objectContaining({ guild: other, contribution: 'revoked' }),
    );
    await waitFor(
      () => row.textContent(),
      (text) => !!text?.includes('contributing revoked'),
    );

    const toggle = guests.getByRole('button', { name: /^Private/ });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    await page.getByRole('status').filter({ hasText: 'Lantern glyphs is now private.' }).waitFor();
    expect((await ownedPack()).private).toBe(true);
    await waitFor(
      () => toggle.getAttribute('aria-pressed'),
      (pressed) => pressed === 'true',
    );
    await expectCleanPage();
  });
});
