/**
 * The console at /ui in a real browser (Debian's Chromium, headless, driven by playwright-core)
 * against a real server and the loopback mock upstream. The login refuses a tenant's key and takes
 * an admin key (a refusal sends the form back with its reason); without a reload the page then shows a tenant at its bound, a budget's remaining
 * amount, and a source scripted to fail going open, half_open after its cooldown and closed after
 * its probe. No console error, no failed request, no serious axe-core violation (the axe source is
 * evaluated through the DevTools protocol, which the page's CSP does not govern; the page itself
 * stays under its CSP). Screenshots at laptop and phone width go to test-artifacts/ (kept by CI).
 * Chromium missing is a failure with instructions, never a skip.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const CHROMIUM = process.env.PGW_CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-artifacts');
const TENANT_KEY = 'tenant-key-console-aaaa';
const ADMIN_KEY = 'admin-key-console-bbbb';
const PROMPT = 'a prompt the console must never show';
/** The page gets a state a second: a change must show within a few of them. */
const SHOWN_WITHIN_MS = 6000;

/** The browser globals the page functions below use (this package compiles without the DOM library). */
declare const document: { documentElement: { scrollWidth: number }; activeElement: { id: string; textContent: string | null } | null };
declare const window: { axe: typeof axe };

let browser: Browser | undefined;
let harness: Harness;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set PGW_CHROMIUM_PATH`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  harness = await startHarness({ sources: { main: {} } }, {
    PGW_SERVER__KEYS: JSON.stringify({ [TENANT_KEY]: 'team-a' }),
    PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN_KEY]),
    LLM__MAX_ATTEMPTS: '1',
    // Four beats of the feed (one a second) open, so the page surely shows `open` before `half_open`.
    LLM__BREAKER__COOLDOWN_S: '4',
    LLM__BREAKER__MAX_COOLDOWN_S: '4',
    LLM__TENANT__MAX_CONCURRENCY: '1',
    LLM__BUDGET__USD: '5',
    LLM__SOURCE__MAIN__PRICING: JSON.stringify({ inputPerMTok: 1000, outputPerMTok: 2000 }),
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

/**
 * Runs `check` on a fresh context (no cookie) and page of the given viewport, then asserts that no
 * console error, page error, failed request or error answer (≥ 400) happened meanwhile.
 */
async function onPage(width: number, height: number, check: (page: Page) => Promise<void>): Promise<void> {
  const context = await browser!.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => void (message.type() === 'error' && problems.push(`console: ${message.text()}`)));
  page.on('pageerror', (error) => void problems.push(`page: ${error.message}`));
  page.on('requestfailed', (request) => void problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => void (response.status() >= 400 && problems.push(`answered ${response.status()}: ${new URL(response.url()).pathname}`)));
  try {
    await check(page);
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
}

async function signIn(page: Page, key: string): Promise<number> {
  await page.getByLabel('Admin key').fill(key);
  const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/ui/login')), page.getByRole('button', { name: 'Sign in' }).click()]);
  await page.waitForLoadState('domcontentloaded');
  return response.status();
}

/** axe-core's serious and critical violations of the page as it is, each with the elements it names. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  return page.evaluate(async () => {
    const result = await window.axe.run(document as never, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

const chat = (content = PROMPT) => harness.openai(TENANT_KEY).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });

test('the console signs in with an admin key only and follows a tenant, a budget and a breaker live', { timeout: 60_000 }, async () => {
  await onPage(1280, 800, async (page) => {
    await page.goto(`${harness.url}/ui`);
    expect(await signIn(page, TENANT_KEY)).toBe(303);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not an admin key');
    expect(await signIn(page, ADMIN_KEY)).toBe(303);
    const breaker = page.locator('tr[data-source="main"] .breaker');
    await breaker.getByText('closed').waitFor({ timeout: SHOWN_WITHIN_MS });

    // A tenant at its bound (one call at a time) while its slow call runs, and the budget that call spends.
    harness.mock.setSource('main', { latencyMs: 4000 });
    const slow = chat();
    await page.locator('tr[data-tenant="team-a"]').getByText('at its bound').waitFor({ timeout: SHOWN_WITHIN_MS });
    await slow;
    await page.locator('tr[data-tenant="team-a"]').getByText('within bounds').waitFor({ timeout: SHOWN_WITHIN_MS });
    const left = page.locator('tr[data-budget="LLM/"] .left');
    await expect.poll(async () => Number((await left.textContent())?.replace('$', '')), { timeout: SHOWN_WITHIN_MS }).toBeLessThan(5);
    expect(Number((await left.textContent())?.replace('$', ''))).toBeGreaterThan(4.9);

    // The source dies (401): open with its time left, half_open once its cooldown is over, closed after a good probe.
    harness.mock.setSource('main', { steps: [{ kind: 'status', status: 401 }] });
    await expect(chat()).rejects.toMatchObject({ status: 503 });
    await breaker.getByText(/^open · \d+ s left$/).waitFor({ timeout: SHOWN_WITHIN_MS });
    await breaker.getByText('half_open').waitFor({ timeout: 4000 + SHOWN_WITHIN_MS });
    await chat();
    await breaker.getByText('closed').waitFor({ timeout: SHOWN_WITHIN_MS });

    const failure = page.locator('#failures tbody tr').first();
    await failure.getByText('AllSourcesExhausted').waitFor({ timeout: SHOWN_WITHIN_MS });
    const text = await page.locator('body').innerText();
    for (const secret of [PROMPT, TENANT_KEY, ADMIN_KEY]) expect(text).not.toContain(secret);

    await page.screenshot({ path: join(ARTIFACTS, 'console.png'), fullPage: true });
  });
});

test('the console has no serious accessibility violation and fits a phone', { timeout: 30_000 }, async () => {
  await onPage(375, 812, async (page) => {
    await page.goto(`${harness.url}/ui`);
    await signIn(page, ADMIN_KEY);
    await page.locator('tr[data-source="main"]').waitFor({ timeout: SHOWN_WITHIN_MS });
    // The page scrolls down, never sideways: wide tables scroll inside their own region.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'console-phone.png'), fullPage: true });
  });
});

test('the login page itself passes the scan, and keyboard focus reaches the key and the button', { timeout: 30_000 }, async () => {
  await onPage(1280, 800, async (page) => {
    await page.goto(`${harness.url}/ui`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign in');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
