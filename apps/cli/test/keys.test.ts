/**
 * `pgw keys` (the real bin/pgw.mjs) against a loopback stub of the admin API: the request each
 * command sends, what it prints, and how a refusal reads and exits. The admin key is never printed.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAdminApiStub, STUB_ADMIN_KEY, type AdminApiStub } from './admin-api-stub.js';
import { removeTempDirs, runCli, tempDir } from './run-cli.js';

let stub: AdminApiStub;
beforeAll(async () => {
  stub = await startAdminApiStub();
});
afterAll(async () => {
  await stub.close();
  removeTempDirs();
});

const env = () => ({ PGW_URL: stub.url, PGW_ADMIN_KEY: STUB_ADMIN_KEY });
const keys = (args: string[], extraEnv: Record<string, string> = {}) => runCli(['keys', ...args], { env: { ...env(), ...extraEnv } });
const lastSeen = () => stub.seen.at(-1)!;

/** A loopback port nothing listens on: one a server just had. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Creates a key through the CLI and answers its id. */
async function created(tenant = 'team-a'): Promise<string> {
  const run = await keys(['create', '--tenant', tenant, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { id: string }).id;
}

describe('pgw keys', () => {
  test('create sends the flags as the body, prints the key alone on stdout once and says on stderr it will not be shown again', async () => {
    const run = await keys([
      'create', '--tenant', 'team-a', '--name', 'billing app', '--model', 'gpt-4o-mini', '--model', 'gpt-4o', '--priority', 'batch',
      '--rpm', '10', '--tpm', '0', '--max-concurrency', '2', '--budget-usd', '1', '--budget-window', 'day', '--expires-at', '2030-01-31',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(lastSeen()).toEqual({
      method: 'POST',
      path: '/admin/keys',
      authorization: `Bearer ${STUB_ADMIN_KEY}`,
      body: {
        tenant: 'team-a', name: 'billing app', models: ['gpt-4o-mini', 'gpt-4o'], priority: 'batch',
        limits: { rpm: 10, tpm: 0, maxConcurrency: 2 }, budget: { usd: 1, window: 'day' }, expiresAt: '2030-01-31T00:00:00.000Z',
      },
    });
    expect(run.stdout).toMatch(/^pgw_sk_\S+\n$/);
    expect(run.stderr).toMatch(/created key_\d+ for tenant team-a \(prefix pgw_sk_Ab3d\).*will not be shown again/);
    expect(run.stdout + run.stderr).not.toContain(STUB_ADMIN_KEY);
  }, 120_000);

  test('create --json prints the API answer, key included; an expiry may be a duration from now', async () => {
    const before = Date.now();
    const run = await keys(['create', '--tenant', 'team-b', '--expires-at', '30d', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout) as { object: string; tenant: string; key: string; expiresAt: string };
    expect(answer).toMatchObject({ object: 'api_key', tenant: 'team-b' });
    expect(answer.key).toMatch(/^pgw_sk_/);
    const expiresAt = Date.parse(answer.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
    expect(expiresAt).toBeLessThan(Date.now() + 30 * 86_400_000 + 1);
    expect(run.stderr).toMatch(/will not be shown again/);
  }, 120_000);

  test('list shows a short table (never a key) and passes --tenant and --state as the query; --json the API list', async () => {
    const id = await created('team-c');
    await keys(['update', id, '--rpm', '10', '--budget-usd', '1', '--budget-window', 'day']);
    const run = await keys(['list', '--tenant', 'team-c', '--state', 'active']);
    expect(run.code, run.stderr).toBe(0);
    expect(lastSeen()).toMatchObject({ method: 'GET', path: '/admin/keys?tenant=team-c&state=active' });
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+name\s+tenant\s+prefix\s+state\s+rpm\s+tpm\s+conc\s+budget\s+expires\s+last used$/);
    expect(lines.slice(2)).toHaveLength(1);
    expect(lines[2]).toMatch(new RegExp(`^${id}\\s+team-c\\s+pgw_sk_Ab3d…\\s+active\\s+10\\s+–\\s+–\\s+\\$1\\.00/day\\s+never\\s+never$`));
    expect(run.stdout).not.toMatch(/pgw_sk_Ab3dx/);
    const json = await keys(['list', '--json']);
    expect((JSON.parse(json.stdout) as { object: string; data: unknown[] }).object).toBe('list');
  }, 120_000);

  test('show prints the record with its use against its bounds and its budget spent', async () => {
    const id = await created('team-d');
    await keys(['update', id, '--rpm', '10', '--max-concurrency', '4', '--budget-usd', '1', '--budget-window', 'day']);
    const run = await keys(['show', id]);
    expect(run.code, run.stderr).toBe(0);
    expect(lastSeen()).toMatchObject({ method: 'GET', path: `/admin/keys/${id}` });
    expect(run.stdout).toMatch(/^rpm\s+3 \/ 10$/m);
    expect(run.stdout).toMatch(/^tpm\s+1200 \(no bound\)$/m);
    expect(run.stdout).toMatch(/^in flight\s+1 \/ 4$/m);
    expect(run.stdout).toMatch(/^budget\s+\$0\.2500 of \$1\.00 per day$/m);
    expect(run.stdout).toMatch(/^models\s+all$/m);
  }, 120_000);

  test('update sends only what changes, null for what --no-expiry, --no-budget and --all-models clear; nothing to change is a usage error', async () => {
    const id = await created();
    const run = await keys(['update', id, '--tpm', '5000', '--no-expiry', '--no-budget', '--all-models', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(lastSeen()).toMatchObject({ method: 'PATCH', path: `/admin/keys/${id}`, body: { limits: { tpm: 5000 }, expiresAt: null, budget: null, models: null } });
    expect(JSON.parse(run.stdout)).toMatchObject({ id, limits: { tpm: 5000 } });
    const count = stub.seen.length;
    const nothing = await keys(['update', id]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/nothing to change/);
    const half = await keys(['update', id, '--budget-usd', '2']);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/--budget-window/);
    expect(stub.seen.length).toBe(count);
  }, 120_000);

  test('rotate sends graceS, prints the new key once and until when the old one works; revoke sends DELETE', async () => {
    const id = await created();
    const rotated = await keys(['rotate', id, '--grace-s', '60']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(lastSeen()).toMatchObject({ method: 'POST', path: `/admin/keys/${id}/rotate`, body: { graceS: 60 } });
    expect(rotated.stdout).toMatch(/^pgw_sk_Ab3dy+\n$/);
    expect(rotated.stderr).toMatch(/previous key works until 2026-12-08T05:00:00.000Z.*will not be shown again/);
    const revoked = await keys(['revoke', id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(lastSeen()).toMatchObject({ method: 'DELETE', path: `/admin/keys/${id}` });
    expect(revoked.stderr).toMatch(new RegExp(`revoked ${id} \\(state revoked\\)`));
    expect(revoked.stdout).toBe('');
  }, 120_000);

  test('a field the API refuses is a usage error naming the flag and the field; an echoed admin key is not printed', async () => {
    stub.refuseNext({ status: 400, body: { error: { message: `limits.rpm is too large for ${STUB_ADMIN_KEY}`, type: 'invalid_request_error', param: 'limits.rpm', code: 'invalid_value' } } });
    const run = await keys(['create', '--tenant', 'team-a', '--rpm', '99999999']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/HTTP 400 invalid_value: --rpm \(limits\.rpm\): limits\.rpm is too large/);
    expect(run.stdout + run.stderr).not.toContain(STUB_ADMIN_KEY);
    expect(run.stdout).toBe('');
  }, 120_000);

  test('exit codes: refused admin key 3, no such key 1, throttled 1 with its retry hint, server unreachable 1', async () => {
    stub.refuseNext({ status: 403, body: { error: { message: 'a tenant key cannot call the admin API', type: 'permission_error' } } });
    const refused = await keys(['list']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/HTTP 403: a tenant key cannot call the admin API/);

    const missing = await keys(['show', 'key_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/HTTP 404 key_not_found: no key key_nope/);

    stub.refuseNext({ status: 429, body: { error: { message: 'too many admin calls', type: 'rate_limit_error' } }, headers: { 'retry-after': '7' } });
    const throttled = await keys(['list']);
    expect(throttled.code).toBe(1);
    expect(throttled.stderr).toMatch(/retry after 7 s/);

    const closed = await closedPort();
    const down = await keys(['list'], { PGW_URL: `http://127.0.0.1:${closed}` });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`cannot reach http://127.0.0.1:${closed} (ECONNREFUSED)`);
  }, 120_000);

  test('the admin key comes from PGW_ADMIN_KEY or --admin-key-file; without either, a configuration error naming PGW_ADMIN_KEY', async () => {
    const none = await runCli(['keys', 'list', '--url', stub.url]);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/PGW_ADMIN_KEY/);
    const file = join(tempDir(), 'admin-key');
    writeFileSync(file, 'admin-key-from-file\n');
    const fromFile = await runCli(['keys', 'list', '--url', stub.url, '--admin-key-file', file]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(lastSeen().authorization).toBe('Bearer admin-key-from-file');
    const badValue = await keys(['create', '--tenant', 'a', '--rpm', '-1']);
    expect(badValue.code).toBe(2);
  }, 120_000);
});
