import { existsSync, readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { System } from './system';

/** Debian's Chromium (`apt-get install chromium`); the browser tests skip with a printed reason without it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep Chromium headless and off the network beyond what a page asks for (this machine has none). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here (no Chromium at `CHROMIUM`), or null when they can. */
export function browserUnavailable(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
}

/**
 * Launches Debian's Chromium (never a downloaded browser) through playwright-core; playwright gives each launch a
 * fresh temporary profile and removes it on `close`.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Console errors, page errors and failed requests (not those cut off by a navigation) a page produced (the browser tests expect none). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => {
    const reason = req.failure()?.errorText ?? '';
    // a request cut off because the page navigated away (the next test's `goto`) is not a failure of the page
    if (reason !== 'net::ERR_ABORTED') errors.push(`request failed: ${req.url()} ${reason}`);
  });
  return errors;
}

/**
 * A fresh browser context (10 s action timeout) in which the real login signs in as `userId`: the dashboard's "Sign
 * in" button goes to the gateway's `/auth/login`, the fake platform's authorize page consents as `userId`
 * (`sys.platformAccount`), the gateway's callback sets the session, and the browser lands back on the dashboard.
 * Contexts are used one at a time: the platform account is the last one chosen.
 */
export async function contextAs(
  browser: Browser,
  sys: Pick<System, 'platformAccount'>,
  userId: string,
  viewport = { width: 1280, height: 860 },
): Promise<BrowserContext> {
  sys.platformAccount(userId);
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(10_000);
  return context;
}

/** The accessibility rules the dashboard is held to: labels, names, titles, language and color contrast. */
export const AXE_RULES = [
  'label',
  'select-name',
  'button-name',
  'link-name',
  'image-alt',
  'document-title',
  'html-has-lang',
  'color-contrast',
];

/** The part of axe-core's API the checks use. */
interface AxeGlobal {
  run(
    context: unknown,
    options: object,
  ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[]; failureSummary: string }> }> }>;
}

/**
 * Runs axe-core (the installed npm package, evaluated in the page like a devtools snippet, so the page's CSP stays
 * as served) with `AXE_RULES` and returns each violation as `rule: target (summary)`.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  return page.evaluate(async (rules) => {
    // axe and document are globals of the page (this package has no DOM types).
    const page = globalThis as unknown as { axe: AxeGlobal; document: unknown };
    const result = await page.axe.run(page.document, { runOnly: { type: 'rule', values: rules } });
    return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} (${n.failureSummary})`));
  }, AXE_RULES);
}
