/**
 * Keys as data, as a new user meets them (issue 49's "done when"): two `pgw serve` in front of one
 * loopback mock upstream, sharing Redis (governance) and PostgreSQL (the key store), a full gate
 * answered at once (`LLM__QUOTA_FULL=fail_fast`; by default a call waits for room); `pgw keys create` makes a key with a $1/day budget and
 * 10 RPM; the openai SDK calls with it until the RPM holds (429 with Retry-After) and, once the
 * budget is cut below what was spent, until the budget holds (budget_exceeded); `pgw keys rotate`
 * leaves both keys working through the grace and the old one refused after it; `pgw keys revoke` on
 * one server is seen by the other within a second.
 */
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeTempDirs, runCli, serveCli } from './run-cli.js';

const ADMIN_KEY = `admin-key-e2e-${randomBytes(6).toString('hex')}`;
const DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `keys_e2e_${randomBytes(5).toString('hex')}`;
const ENV = {
  PGW_SERVER__ADMIN_KEYS: JSON.stringify([ADMIN_KEY]),
  PGW_KEYS__DSN: DSN,
  PGW_KEYS__SCHEMA: SCHEMA,
  REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
  PGW_LIMITER_BACKEND: 'redis',
  PGW_BREAKER_BACKEND: 'redis',
};

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ port: 0, script: { sources: { main: {} } } });
});

const children: ChildProcess[] = [];
afterAll(async () => {
  await mock.close();
  for (const child of children) child.kill('SIGTERM');
  const client = new pg.Client({ connectionString: DSN });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await client.end();
  removeTempDirs();
});

/** `pgw serve` on the fleet's stores over the mock; resolves with its URL once it listens. */
function serve(): Promise<string> {
  const server = serveCli({ ...ENV, LLM__SOURCE__MAIN__BASE_URL: mock.baseUrl('main'), LLM__SOURCE__MAIN__MODEL: 'gpt-4o-mini', LLM__QUOTA_FULL: 'fail_fast' });
  children.push(server.child());
  return server.listening;
}

const keys = async (url: string, args: string[]) => {
  const run = await runCli(['keys', ...args], { env: { PGW_URL: url, PGW_ADMIN_KEY: ADMIN_KEY } });
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
};
const openai = (url: string, apiKey: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
// Each question its own, so no answer comes from the response cache (a cached answer spends no quota).
let asked = 0;
const call = (url: string, apiKey: string) => openai(url, apiKey).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `question ${++asked}` }] });
const status = async (url: string, apiKey: string) => (await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } })).status;

/** Polls `check` every 20 ms until it holds or `deadlineMs` passes; answers the time it took. */
async function within(deadlineMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > deadlineMs) throw new Error(`not within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - started;
}

describe('keys as data with pgw serve', () => {
  test('create with a budget and an RPM, call until each holds, rotate through a grace, revoke across two servers', async () => {
    const [a, b] = await Promise.all([serve(), serve()]);
    const created = JSON.parse(await keys(a, ['create', '--tenant', 'team-a', '--name', 'e2e', '--rpm', '10', '--budget-usd', '1', '--budget-window', 'day', '--json']));
    const { key, id } = created as { key: string; id: string };
    expect(key).toMatch(/^pgw_sk_/);

    // Ten calls in the minute, on either server: the eleventh is refused with a Retry-After.
    for (let index = 0; index < 10; index++) await call(index % 2 === 0 ? a : b, key);
    const limited = await call(b, key).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number((limited as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after'))).toBeGreaterThan(0);

    // Lift the RPM and cut the budget below what the ten calls spent: the next call is over budget.
    await keys(a, ['update', id, '--rpm', '0', '--budget-usd', '0.000000001', '--budget-window', 'day']);
    const over = await call(a, key).catch((error: unknown) => error);
    expect(over).toBeInstanceOf(OpenAI.RateLimitError);
    expect((over as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('budget_exceeded');
    await keys(a, ['update', id, '--no-budget']);

    // Rotation: both keys work through the grace; the old one is refused after it.
    const rotated = (await keys(a, ['rotate', id, '--grace-s', '3'])).trim();
    expect(rotated).toMatch(/^pgw_sk_/);
    expect(await status(b, rotated)).toBe(200);
    expect(await status(b, key)).toBe(200);
    await within(15_000, async () => (await status(b, key)) === 401);
    expect(await status(b, rotated)).toBe(200);

    // Revocation on one server: the other refuses the key within a second.
    await keys(a, ['revoke', id]);
    const tookMs = await within(1_000, async () => (await status(b, rotated)) === 401);
    console.log(`[figure] a revocation on one server reached the other in ${Math.round(tookMs)} ms`);
  });
});
