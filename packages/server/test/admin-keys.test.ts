/**
 * Keys as data at the door (issue 49): the admin API over the embedded store (a real SQLite file in a
 * directory of each test's own) and stored keys calling through real loopback servers. Time moves
 * only through the server's injected clock, so a grace or an expiry passes without a wait.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const ADMIN_KEY = 'admin-key-0123456789';
const TENANT_KEY = 'sk-static-tenant-key-01';
const HOUR_MS = 3600_000;

interface Fixture {
  harness: Harness;
  clock: { now: number };
  admin: (method: string, path: string, body?: unknown, key?: string) => Promise<{ status: number; body: any; headers: Headers }>;
  models: (key: string) => Promise<number>;
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function start(env: Record<string, string> = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-admin-keys-'));
  const clock = { now: Date.UTC(2026, 0, 1) };
  const harness = await startHarness(
    { sources: { main: {} } },
    { PGW_SERVER__KEYS: JSON.stringify({ [TENANT_KEY]: 'static-team' }), PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN_KEY]), PGW_KEYS__DIR: dir, ...env },
    [],
    { now: () => clock.now },
  );
  open.push(async () => rmSync(dir, { recursive: true, force: true }), () => harness.close());
  const admin: Fixture['admin'] = async (method, path, body, key = ADMIN_KEY) => {
    const response = await fetch(`${harness.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  };
  const models = async (key: string) => (await fetch(`${harness.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;
  return { harness, clock, admin, models };
}

describe('the admin API of stored keys', () => {
  it('creates a key shown once; list and show never show a key, a digest or a salt', async () => {
    const { admin, harness } = await start();
    const created = await admin('POST', '/admin/keys', { tenant: 'team-a', name: 'app', models: ['gpt-4o-mini'], limits: { rpm: 10 }, budget: { usd: 1, window: 'day' } });
    expect(created.status).toBe(201);
    const { key, ...record } = created.body;
    expect(key).toMatch(/^pgw_sk_[A-Za-z0-9_-]{43}$/);
    expect(record).toEqual({
      object: 'api_key',
      id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      name: 'app',
      tenant: 'team-a',
      models: ['gpt-4o-mini'],
      mcp: null,
      priority: 'interactive',
      limits: { rpm: 10, tpm: 0, maxConcurrency: 0 },
      budget: { usd: 1, window: 'day' },
      expiresAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: null,
      state: 'active',
      prefix: key.slice(0, 11),
    });
    const listed = await admin('GET', '/admin/keys');
    const shown = await admin('GET', `/admin/keys/${record.id}`);
    const audit = await admin('GET', '/admin/keys/audit');
    for (const answer of [listed, shown, audit]) {
      const text = JSON.stringify(answer.body);
      expect(text).not.toContain(key.slice(11));
      expect(text).not.toMatch(/digest|salt|lookup|secret/);
    }
    expect(listed.body).toEqual({ object: 'list', data: [record] });
    expect(shown.body).toEqual({ ...record, usage: { rpmUsed: 0, tpmUsed: 0, inflight: 0, spentUsd: 0 } });
    // The key calls through the openai SDK, as its tenant, for its models only; the call is booked against the key's bounds.
    const answer = await harness.openai(key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]?.message.content).toBeTypeOf('string');
    expect((await harness.openai(key).models.list()).data.map((model) => model.id)).toEqual(['gpt-4o-mini']);
    const used = await admin('GET', `/admin/keys/${record.id}`);
    expect(used.body.usage).toMatchObject({ rpmUsed: 1, inflight: 0 });
    expect(used.body.usage.spentUsd).toBeGreaterThan(0);
  });

  it("shows a stored key with its use in the console's Keys panel, and a revocation there refuses the key", async () => {
    const { admin, harness, models } = await start();
    const created = await admin('POST', '/admin/keys', { tenant: 'team-a', name: 'panel', limits: { rpm: 5 } });
    const { key, id } = created.body;
    await harness.openai(key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const login = await fetch(`${harness.url}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: harness.url },
      body: new URLSearchParams({ key: ADMIN_KEY }).toString(),
    });
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const state: any = await (await fetch(`${harness.url}/ui/state`, { headers: { cookie } })).json();
    expect(state.keys.list).toEqual([expect.objectContaining({ id, name: 'panel', tenant: 'team-a', state: 'active', usage: expect.objectContaining({ rpmUsed: 1 }) })]);
    expect(JSON.stringify(state)).not.toContain(key.slice(11));
    const revoked = await fetch(`${harness.url}/ui/keys/${id}`, { method: 'DELETE', headers: { cookie, origin: harness.url } });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ id, state: 'revoked' });
    expect(await models(key)).toBe(401);
    const audit = await admin('GET', '/admin/keys/audit');
    expect(audit.body.data.some((entry: { action: string; actor: string; keyId: string }) => entry.action === 'revoke' && entry.actor === 'console' && entry.keyId === id)).toBe(true);
  });

  it('opens only to an admin key: a tenant key, static or stored, is 403; none or an unknown one 401', async () => {
    const { admin } = await start();
    const { body } = await admin('POST', '/admin/keys', { tenant: 'team-a' });
    for (const [key, status, code] of [
      [TENANT_KEY, 403, 'admin_key_required'],
      [body.key, 403, 'admin_key_required'],
      ['not-a-key-at-all', 401, 'invalid_api_key'],
      [`pgw_sk_${'A'.repeat(43)}`, 401, 'invalid_api_key'],
    ] as const) {
      const refused = await admin('GET', '/admin/keys', undefined, key);
      expect([refused.status, refused.body.error.code]).toEqual([status, code]);
    }
    // An admin key is no API key.
    expect((await fetch(`${(await start()).harness.url}/v1/models`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(401);
  });

  it('changes a key with PATCH (null clears), each change an audit row naming the admin by fingerprint', async () => {
    const { admin } = await start();
    const { body } = await admin('POST', '/admin/keys', { tenant: 'team-a', models: ['gpt-4o-mini'], budget: { usd: 1, window: 'day' } });
    const patched = await admin('PATCH', `/admin/keys/${body.id}`, { name: 'renamed', models: null, limits: { tpm: 500 }, budget: null, priority: 'batch' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'renamed', models: null, limits: { rpm: 0, tpm: 500, maxConcurrency: 0 }, budget: null, priority: 'batch' });
    const audit = await admin('GET', `/admin/keys/audit?keyId=${body.id}`);
    expect(audit.body.data.map((row: { action: string }) => row.action)).toEqual(['update', 'create']);
    expect(audit.body.data[0]).toEqual({ at: '2026-01-01T00:00:00.000Z', actor: expect.stringMatching(/^admin:[0-9a-f]{12}$/), action: 'update', keyId: body.id, changes: { name: 'renamed', models: null, limits: { tpm: 500 }, budget: null, priority: 'batch' } });
    expect(JSON.stringify(audit.body)).not.toContain(ADMIN_KEY);
    expect((await admin('PATCH', '/admin/keys/key_0000000000000000', { name: 'x' })).status).toBe(404);
  });

  it('rotates: both keys work during the grace, the old one is refused after it', async () => {
    const { admin, clock, models } = await start();
    const { body } = await admin('POST', '/admin/keys', { tenant: 'team-a' });
    expect(await models(body.key)).toBe(200);
    const rotated = await admin('POST', `/admin/keys/${body.id}/rotate`, { graceS: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: body.id, state: 'rotating', previousKeyExpiresAt: new Date(clock.now + HOUR_MS).toISOString() });
    expect(rotated.body.key).not.toBe(body.key);
    expect([await models(body.key), await models(rotated.body.key)]).toEqual([200, 200]);
    clock.now += HOUR_MS - 1;
    expect(await models(body.key)).toBe(200);
    clock.now += 1;
    expect([await models(body.key), await models(rotated.body.key)]).toEqual([401, 200]);
    expect((await admin('GET', `/admin/keys/${body.id}`)).body.state).toBe('active');
  });

  it('rotates without a grace (graceS 0): the old key is refused at once', async () => {
    const { admin, models } = await start();
    const { body } = await admin('POST', '/admin/keys', { tenant: 'team-a' });
    const rotated = await admin('POST', `/admin/keys/${body.id}/rotate`, { graceS: 0 });
    expect(rotated.body.state).toBe('active');
    expect([await models(body.key), await models(rotated.body.key)]).toEqual([401, 200]);
  });

  it('revokes: every key of the record is refused from the next request, and a revoked key cannot be changed', async () => {
    const { admin, models } = await start();
    const { body } = await admin('POST', '/admin/keys', { tenant: 'team-a' });
    const rotated = await admin('POST', `/admin/keys/${body.id}/rotate`, {});
    expect([await models(body.key), await models(rotated.body.key)]).toEqual([200, 200]);
    const revoked = await admin('DELETE', `/admin/keys/${body.id}`);
    expect([revoked.status, revoked.body.state]).toEqual([200, 'revoked']);
    expect([await models(body.key), await models(rotated.body.key)]).toEqual([401, 401]);
    const refused = await admin('PATCH', `/admin/keys/${body.id}`, { name: 'back' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'key_not_live']);
    expect((await admin('GET', '/admin/keys?state=revoked')).body.data.map((row: { id: string }) => row.id)).toEqual([body.id]);
  });

  it('refuses an expired key', async () => {
    const { admin, clock, models } = await start();
    const { body } = await admin('POST', '/admin/keys', { tenant: 'team-a', expiresAt: new Date(clock.now + HOUR_MS).toISOString() });
    expect(await models(body.key)).toBe(200);
    clock.now += HOUR_MS;
    expect(await models(body.key)).toBe(401);
  });

  it.each([
    [{ tenant: 'team-a', expiresAt: '2025-12-31T23:59:59Z' }, 'expiresAt'],
    [{ tenant: 'team-a', expiresAt: 'tomorrow' }, 'expiresAt'],
    [{}, 'tenant'],
    [{ tenant: '' }, 'tenant'],
    [{ tenant: 'x'.repeat(257) }, 'tenant'],
    [{ tenant: 'team-a', role: 'admin' }, 'role'],
    [{ tenant: 'team-a', limits: { rpm: -1 } }, 'limits.rpm'],
    [{ tenant: 'team-a', limits: { rpm: 1.5 } }, 'limits.rpm'],
    [{ tenant: 'team-a', limits: { burst: 1 } }, 'limits.burst'],
    [{ tenant: 'team-a', budget: { usd: 1, window: 'week' } }, 'budget.window'],
    [{ tenant: 'team-a', budget: { usd: 0, window: 'day' } }, 'budget.usd'],
    [{ tenant: 'team-a', models: [] }, 'models'],
    [{ tenant: 'team-a', models: Array.from({ length: 1001 }, (_, i) => `m${i}`) }, 'models'],
    [{ tenant: 'team-a', priority: 'urgent' }, 'priority'],
    [[], 'body'],
  ])('refuses %j naming %s', async (body, param) => {
    const { admin } = await start();
    const refused = await admin('POST', '/admin/keys', body);
    expect([refused.status, refused.body.error.param]).toEqual([400, param]);
    expect((await admin('GET', '/admin/keys')).body.data).toEqual([]);
  });

  it('refuses a bad id, grace or query by name', async () => {
    const { admin } = await start();
    const { body } = await admin('POST', '/admin/keys', { tenant: 'team-a' });
    expect((await admin('GET', '/admin/keys/not-an-id')).body.error.param).toBe('id');
    expect((await admin('POST', `/admin/keys/${body.id}/rotate`, { graceS: -1 })).body.error.param).toBe('graceS');
    expect((await admin('GET', '/admin/keys?state=paused')).body.error.param).toBe('state');
    expect((await admin('GET', '/admin/keys?color=red')).body.error.param).toBe('color');
  });

  it('rate-limits each admin key, answering 429 with Retry-After', async () => {
    const { admin } = await start();
    const answers = await Promise.all(Array.from({ length: 120 }, () => admin('GET', '/admin/keys')));
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.body.error.code).toBe('admin_rate_limited');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
