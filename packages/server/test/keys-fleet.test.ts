/**
 * Two servers sharing one PostgreSQL key store (a schema of this run's own, dropped after): a key
 * made on one calls on the other, and a revocation on one is refused on the other from the change's
 * notification on — the poll's deadline is the bound (1 s), far below the store's 5 s
 * version check, so only LISTEN/NOTIFY can meet it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const ADMIN_KEY = 'admin-fleet-key-0001';
const PROPAGATION_BOUND_MS = 1000;

describe('stored keys across a fleet on PostgreSQL', () => {
  const schema = `pgw_keys_fleet_${randomBytes(6).toString('hex')}`;
  let one: Harness;
  let two: Harness;

  beforeAll(async () => {
    const env = { PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN_KEY]), PGW_KEYS__DSN: DSN, PGW_KEYS__SCHEMA: schema };
    one = await startHarness(undefined, env);
    two = await startHarness(undefined, env);
  });

  afterAll(async () => {
    await Promise.allSettled([one?.close(), two?.close()]);
    const client = new pg.Client({ connectionString: DSN });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    } finally {
      await client.end();
    }
  });

  const status = async (harness: Harness, key: string) => (await fetch(`${harness.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;
  const admin = async (harness: Harness, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${harness.url}${path}`, { method, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as { id: string; key: string; state: string } };
  };

  it('a key made on one server calls on the other; revoked on one, the other refuses it within 1 s', async () => {
    const created = await admin(one, 'POST', '/admin/keys', { tenant: 'team-a' });
    expect(created.status).toBe(201);
    // Read (and cached) on the second server before the revocation.
    expect(await status(two, created.body.key)).toBe(200);
    expect(await status(two, created.body.key)).toBe(200);
    const revoked = await admin(one, 'DELETE', `/admin/keys/${created.body.id}`);
    expect(revoked.body.state).toBe('revoked');
    const deadline = performance.now() + PROPAGATION_BOUND_MS;
    let answer = await status(two, created.body.key);
    while (answer !== 401 && performance.now() < deadline) answer = await status(two, created.body.key);
    expect(answer).toBe(401);
    expect(await status(one, created.body.key)).toBe(401);
  });

  it('a rotation on one server is honoured by the other: the new key calls there at once', async () => {
    const created = await admin(one, 'POST', '/admin/keys', { tenant: 'team-a' });
    expect(await status(two, created.body.key)).toBe(200);
    const rotated = await admin(two, 'POST', `/admin/keys/${created.body.id}/rotate`, { graceS: 60 });
    expect([await status(one, rotated.body.key), await status(one, created.body.key), await status(two, rotated.body.key)]).toEqual([200, 200, 200]);
  });
});
