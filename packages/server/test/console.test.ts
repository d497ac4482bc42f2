/**
 * The console's door over real HTTP: who may look (open on a keyless loopback server; otherwise only
 * a session opened with an admin key — never a tenant's key, never a key in a header), the login's
 * CSRF check and its bound on failures, the cookie's attributes, the strict headers of every answer,
 * the live stream, the extra panels, and a drain that ends the consoles' streams instead of waiting
 * for them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsError } from '@pgw/client';
import { startMockUpstream } from '@pgw/mock-upstream';
import { GatewayServer, loadServerSettings, type ConsolePanel } from '../src/index.js';
import { startHarness, type Harness } from './helpers.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const TENANT_KEY = 'tenant-key-1234567';
const ADMIN_KEY = 'admin-key-7654321';
const KEYED = { PGW_SERVER__KEYS: JSON.stringify({ [TENANT_KEY]: 'team-a' }), PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN_KEY]) };

let harness: Harness | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-console-batches-'));
  scratch.push(dir);
  return dir;
}

async function start(env: Record<string, string> = {}, consolePanels: readonly ConsolePanel[] = []): Promise<Harness> {
  harness = await startHarness({ sources: { main: {} } }, env, [], { consolePanels });
  return harness;
}

/** `origin: null` sends none. */
const login = (url: string, key: string, origin: string | null = url) =>
  fetch(`${url}/ui/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin !== null && { origin }) },
    body: new URLSearchParams({ key }).toString(),
  });

const sessionOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0] ?? '';

/** The first `event: state` of the stream, parsed. */
async function firstEvent(url: string, cookie = ''): Promise<{ response: Response; state: Record<string, unknown> }> {
  const controller = new AbortController();
  const response = await fetch(`${url}/ui/events`, { headers: { cookie }, signal: controller.signal });
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  return { response, state: JSON.parse(text.split('data: ')[1]!.split('\n')[0]!) };
}

describe('a keyless loopback server', () => {
  it('serves the console open, with strict headers, its own script and style, and a live state', async () => {
    const { url } = await start();
    const page = await fetch(`${url}/ui`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toContain('<script src="/ui/app.js" defer></script>');
    expect(html).not.toMatch(/<script>|<style|\sstyle=|\son\w+=/);
    expect(html).not.toContain('Sign out');
    expect((await fetch(`${url}/ui/app.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${url}/ui/app.css`)).headers.get('content-type')).toMatch(/^text\/css/);

    const { response, state } = await firstEvent(url);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('content-security-policy')).toBe(csp);
    expect(state).toMatchObject({ draining: false, scopes: [{ scope: 'LLM', kind: 'chat', shared: false, sources: [{ source: 'main', health: 'healthy', breaker: { state: 'closed' } }] }] });
  });

  it('answers a non-loopback Host with 403, as every route of a keyless server', async () => {
    const { url } = await start();
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request(`${url}/ui`, { headers: { host: 'evil.example:80' } }, (res) => resolve(res.statusCode!)).on('error', reject).end();
    });
    expect(status).toBe(403);
  });
});

describe('a server with keys', () => {
  it('opens the console only to a session made with an admin key', async () => {
    const { url } = await start(KEYED);
    expect((await fetch(`${url}/ui/state`)).status).toBe(401);
    expect((await fetch(`${url}/ui/events`)).status).toBe(401);
    expect((await fetch(`${url}/ui/state`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(401);
    expect((await fetch(`${url}/ui/state`, { headers: { authorization: `Bearer ${TENANT_KEY}` } })).status).toBe(401);
    expect(await (await fetch(`${url}/ui`)).text()).toContain('<label for="key">Admin key</label>');

    const refused = await login(url, TENANT_KEY);
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/ui?login=refused');
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(await (await fetch(`${url}/ui?login=refused`)).text()).toContain('not an admin key');

    const accepted = await login(url, ADMIN_KEY);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/ui');
    const cookie = accepted.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^pgw_console=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/ui; Max-Age=28800$/);
    expect(cookie).not.toContain(ADMIN_KEY);
    const session = sessionOf(accepted);
    const state = await fetch(`${url}/ui/state`, { headers: { cookie: session } });
    expect(state.status).toBe(200);
    expect(await state.json()).toMatchObject({ tenants: [{ tenantId: 'team-a', scope: 'LLM' }] });
    expect(await (await fetch(`${url}/ui`, { headers: { cookie: session } })).text()).toContain('Sign out');
    // The admin key is no API key.
    expect((await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(401);

    const out = await fetch(`${url}/ui/logout`, { method: 'POST', redirect: 'manual', headers: { cookie: session, origin: url } });
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await fetch(`${url}/ui/state`, { headers: { cookie: session } })).status).toBe(401);
  });

  it('refuses a login form that did not come from the console (CSRF)', async () => {
    const { url } = await start(KEYED);
    for (const origin of [null, 'null', 'http://evil.example', url.replace('http:', 'https:')]) {
      const response = await login(url, ADMIN_KEY, origin);
      expect(response.status).toBe(403);
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses every login for a minute after ten failed ones, the right key included', async () => {
    const { url } = await start(KEYED);
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await login(url, `wrong-key-${attempt}`)).headers.get('location')).toBe('/ui?login=refused');
    const throttled = await login(url, ADMIN_KEY);
    expect(throttled.headers.get('location')).toBe('/ui?login=throttled');
    expect(throttled.headers.get('set-cookie')).toBeNull();
  });

  it('keeps the console closed without admin keys, and says why', async () => {
    const { url } = await start({ PGW_SERVER__KEYS: KEYED.PGW_SERVER__KEYS });
    expect(await (await fetch(`${url}/ui`)).text()).toContain('has no admin keys');
    expect((await login(url, TENANT_KEY)).headers.get('location')).toBe('/ui?login=closed');
    expect((await fetch(`${url}/ui/state`)).status).toBe(401);
  });
});

describe('PGW_SERVER__ADMIN_KEYS', () => {
  const problemOf = (env: Record<string, string>) => {
    try {
      loadServerSettings(env);
    } catch (error) {
      expect(error).toBeInstanceOf(SettingsError);
      return (error as SettingsError).message;
    }
    throw new Error('accepted');
  };

  it('reads a JSON list or a file holding one', () => {
    expect(loadServerSettings({ PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN_KEY]) }).adminKeys.admits(ADMIN_KEY)).toBe(true);
    const file = join(tmpdir(), `pgw-admin-keys-${process.pid}.json`);
    writeFileSync(file, JSON.stringify([ADMIN_KEY]));
    const keys = loadServerSettings({ PGW_SERVER__ADMIN_KEYS: file }).adminKeys;
    expect([keys.size, keys.admits(ADMIN_KEY), keys.admits(TENANT_KEY)]).toEqual([1, true, false]);
  });

  it('refuses a malformed value, a short key and a key that is also an API key, never echoing a key', () => {
    for (const [raw, problem] of [
      ['{"not":"a list"}', /JSON list|1 to 100/],
      ['[]', /1 to 100/],
      ['["short"]', /key #1 must be a string of at least 8/],
      ['/no/such/file', /JSON list/],
    ] as const) {
      const message = problemOf({ PGW_SERVER__ADMIN_KEYS: raw });
      expect(message).toContain('PGW_SERVER__ADMIN_KEYS');
      expect(message).toMatch(problem);
      expect(message).not.toContain('short');
    }
    const both = problemOf({ ...KEYED, PGW_SERVER__ADMIN_KEYS: JSON.stringify([TENANT_KEY]) });
    expect(both).toContain('also in PGW_SERVER__KEYS');
    expect(both).not.toContain(TENANT_KEY);
  });
});

describe('the console state', () => {
  it('shows the extra panels it is given, and a panel that fails by its error class only', async () => {
    const panels: ConsolePanel[] = [
      { id: 'jobs', title: 'Jobs', read: () => ({ columns: ['job', 'progress'], rows: [['j1', '40%']] }) },
      { id: 'broken', title: 'Broken', read: () => Promise.reject(new RangeError('secret detail')) },
    ];
    const { url } = await start({ PGW_BATCH__DIR: scratchDir() }, panels);
    const state = (await (await fetch(`${url}/ui/state`)).json()) as { panels: Array<{ id: string }> };
    expect(state.panels.slice(1)).toEqual([
      { id: 'jobs', title: 'Jobs', table: { columns: ['job', 'progress'], rows: [['j1', '40%']] } },
      { id: 'broken', title: 'Broken', problem: 'not readable (RangeError)' },
    ]);
  });

  it('shows the batches: none before the first (and no batch file), then each with its progress and cost', async () => {
    const dir = scratchDir();
    const { url } = await start({ PGW_BATCH__DIR: dir });
    const batchesOf = async () => ((await (await fetch(`${url}/ui/state`)).json()) as { panels: Array<{ id: string; table: { rows: unknown[][] } }> }).panels[0]!;
    expect(await batchesOf()).toMatchObject({ id: 'batches', title: 'Batches', table: { rows: [] } });
    expect(existsSync(join(dir, 'batch.sqlite'))).toBe(false);
    const lines = Array.from({ length: 5 }, (_, index) => JSON.stringify({ custom_id: `q${index}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `q${index}` }] } }));
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([`${lines.join('\n')}\n`]), 'input.jsonl');
    const file = (await (await fetch(`${url}/v1/files`, { method: 'POST', body: form })).json()) as { id: string };
    const created = await fetch(`${url}/v1/batches`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    });
    const { id } = (await created.json()) as { id: string };
    let rows: unknown[][] = [];
    for (let tries = 0; tries < 200 && rows[0]?.[2] !== 'completed'; tries += 1) {
      rows = (await batchesOf()).table.rows;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(rows).toEqual([[id, '(none)', 'completed', 5, 0, 0, 5, '–', '–', expect.stringMatching(/^\$\d+\.\d{4}$/)]]);
  });

  it('ends the open console streams when the server drains, instead of waiting for them', async () => {
    const { url, server } = await start();
    const controller = new AbortController();
    const stream = await fetch(`${url}/ui/events`, { signal: controller.signal });
    const reader = stream.body!.getReader();
    await reader.read();
    const started = performance.now();
    await server.drain(10_000);
    // The drain waits for a quiet second (docs: "The drain"), not for the stream's ten-second grace.
    expect(performance.now() - started).toBeLessThan(5000);
    let ended = false;
    for (let chunk = await reader.read().catch(() => ({ done: true })); !ended; chunk = await reader.read().catch(() => ({ done: true }))) ended = chunk.done === true;
    expect(ended).toBe(true);
  });
});

describe('a fleet on Redis', () => {
  it("shows the fleet's breaker on every server, and the failures only on the server that saw them", async () => {
    const scope = `CONSOLE_${randomBytes(5).toString('hex').toUpperCase()}`;
    const mock = await startMockUpstream({ port: 0, script: { sources: { main: {} } } });
    const env = {
      PGW_LIMITER_BACKEND: 'redis',
      REDIS_URL,
      PGW_CACHE_BACKEND: 'none',
      PGW_SERVER__MODELS: JSON.stringify({ 'gpt-4o-mini': scope }),
      [`${scope}__SOURCE__MAIN__BASE_URL`]: mock.baseUrl('main'),
      [`${scope}__SOURCE__MAIN__MODEL`]: 'gpt-4o-mini',
      [`${scope}__MAX_ATTEMPTS`]: '1',
      [`${scope}__BREAKER__COOLDOWN_S`]: '60',
    };
    const servers = [new GatewayServer({ env, warn: () => {}, log: () => {} }), new GatewayServer({ env, warn: () => {}, log: () => {} })];
    try {
      const [a, b] = await Promise.all(servers.map((server) => server.listen({ port: 0 })));
      const chat = (url: string) =>
        fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }) });
      // A scope shows on a server once a call there built its client.
      expect((await chat(b!)).status).toBe(200);
      mock.setSource('main', { steps: [{ kind: 'status', status: 401 }] });
      expect((await chat(a!)).status).toBe(503);
      type State = { scopes: { scope: string; shared: boolean; sources: { source: string; breaker: { state: string }; inflightHere: number; recentErrors: unknown[] }[] }[]; failuresHere: unknown[] };
      const [onA, onB] = (await Promise.all([a!, b!].map(async (url) => (await fetch(`${url}/ui/state`)).json()))) as State[];
      for (const state of [onA!, onB!]) expect(state.scopes).toMatchObject([{ scope, shared: true, sources: [{ source: 'main', breaker: { state: 'open' } }] }]);
      expect(onA!.failuresHere).toHaveLength(1);
      expect(onA!.scopes[0]!.sources[0]!.recentErrors).toHaveLength(1);
      expect(onB!.failuresHere).toEqual([]);
      expect(onB!.scopes[0]!.sources[0]!.recentErrors).toEqual([]);
    } finally {
      await Promise.all(servers.map((server) => server.drain(0)));
      await mock.close();
    }
  });
});
