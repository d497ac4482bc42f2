/**
 * The console's one change, `DELETE /ui/keys/{id}`, over real loopback HTTP on the console's own
 * routes (the store's revocation is a recording function here: its own tests are the store's): it
 * takes only a session opened with an admin key and a request from this origin (CSRF), answers the
 * revoked record, and never echoes an id that is not a key's.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { OperatorKeys } from '../src/door/admin-keys.js';
import { ApiKeys } from '../src/door/api-keys.js';
import { ConsoleFeed } from '../src/console/feed.js';
import { registerConsole } from '../src/console/routes.js';
import { ConsoleSessions } from '../src/console/sessions.js';
import type { KeyView } from '../src/console/state.js';
import { consoleState } from './console-snapshot.js';

const ADMIN_KEY = 'admin-key-revoke-0001';
const TENANT_KEY = 'tenant-key-revoke-0002';
const REVOKED: KeyView = {
  id: 'key_0123456789abcdef', name: 'billing', tenant: 'team-a', prefix: 'pgw_sk_Ab3d', state: 'revoked',
  limits: { rpm: 10, tpm: 0, maxConcurrency: 0 }, budget: null, expiresAt: null, lastUsedAt: null,
};

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(revokeKey?: (id: string) => Promise<KeyView | undefined>): Promise<string> {
  app = Fastify();
  const feed = new ConsoleFeed(async () => consoleState(), () => {});
  registerConsole(app, {
    apiKeys: new ApiKeys(new Map([[TENANT_KEY, { tenantId: 'team-a', priority: 'interactive' }]])),
    adminKeys: new OperatorKeys([ADMIN_KEY]),
    sessions: new ConsoleSessions(3_600_000),
    feed,
    state: async () => consoleState(),
    draining: () => false,
    ...(revokeKey && { revokeKey }),
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

async function session(url: string, key = ADMIN_KEY): Promise<string> {
  const response = await fetch(`${url}/ui/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ key }).toString(),
  });
  return response.headers.get('set-cookie')?.split(';')[0] ?? '';
}

const revoke = (url: string, id: string, headers: Record<string, string>) => fetch(`${url}/ui/keys/${encodeURIComponent(id)}`, { method: 'DELETE', headers });

describe('revoking a key from the console', () => {
  it('revokes with an admin session from this origin and answers the record', async () => {
    const asked: string[] = [];
    const url = await start(async (id) => (asked.push(id), REVOKED));
    const response = await revoke(url, REVOKED.id, { cookie: await session(url), origin: url });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(REVOKED);
    expect(asked).toEqual([REVOKED.id]);
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
  });

  it('refuses a request from another origin or without one (CSRF), and one without an admin session, before revoking anything', async () => {
    const asked: string[] = [];
    const url = await start(async (id) => (asked.push(id), REVOKED));
    const cookie = await session(url);
    for (const origin of [undefined, 'null', 'http://evil.example', url.replace('http:', 'https:')]) {
      const response = await revoke(url, REVOKED.id, { cookie, ...(origin !== undefined && { origin }) });
      expect(response.status, String(origin)).toBe(403);
    }
    expect((await revoke(url, REVOKED.id, { origin: url })).status).toBe(401);
    expect((await revoke(url, REVOKED.id, { origin: url, cookie: await session(url, TENANT_KEY) })).status).toBe(401);
    expect((await revoke(url, REVOKED.id, { origin: url, authorization: `Bearer ${ADMIN_KEY}` })).status).toBe(401);
    expect(asked).toEqual([]);
  });

  it('answers 404 for an unknown key, an id that is no key id (not echoed, never asked for), and on a server without a key store', async () => {
    const asked: string[] = [];
    const url = await start(async (id) => (asked.push(id), undefined));
    const cookie = await session(url);
    const unknown = await revoke(url, 'key_ffffffffffffffff', { cookie, origin: url });
    expect(unknown.status).toBe(404);
    const hostile = await revoke(url, '<script>x</script>', { cookie, origin: url });
    expect(hostile.status).toBe(404);
    expect(await hostile.text()).not.toContain('script');
    expect(asked).toEqual(['key_ffffffffffffffff']);
    await app!.close();
    const bare = await start();
    const none = await revoke(bare, REVOKED.id, { cookie: await session(bare), origin: bare });
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ error: 'this server keeps no keys' });
  });
});
