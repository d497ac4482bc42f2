import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Lease } from '@pgw/core';
import { startPrivateRedis, TEST_BREAKER_POLICY, UNLIMITED, type PrivateRedis } from '@pgw/testkit';
import { RedisGovernor } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
let server: PrivateRedis;
beforeAll(async () => {
  server = await startPrivateRedis();
});
afterAll(async () => {
  await pool.closeAll();
  await server.stop();
});

/** Script calls Redis served since the last reset (EVALSHA, and EVAL when a script was not loaded yet). */
async function scriptCalls(redis: ReturnType<typeof pool.open>): Promise<number> {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

function governorOn(redis: ReturnType<typeof pool.open>, globalRpm = 0) {
  return new RedisGovernor({
    redis,
    scope: uniqueScope('coalesce'),
    sources: { a: UNLIMITED, b: UNLIMITED },
    global: { ...UNLIMITED, rpm: globalRpm },
    leaseTtlMs: 30_000,
    policy: TEST_BREAKER_POLICY,
  });
}

it('the admissions and the ends issued within one event-loop turn are one script call each way', async () => {
  const redis = pool.open(server.url);
  const governor = governorOn(redis);
  const warm = await governor.admit('a', 1);
  await (warm as Lease).finish('success', 1);
  await redis.config('RESETSTAT');
  const leases = await Promise.all(Array.from({ length: 40 }, (_, i) => governor.admit(i % 2 === 0 ? 'a' : 'b', 10)));
  expect(leases.every((lease) => lease.ok)).toBe(true);
  expect(await scriptCalls(redis)).toBe(1);
  await Promise.all(leases.map((lease) => (lease as Lease).finish('success', 7)));
  expect(await scriptCalls(redis)).toBe(2);
  expect(await governor.limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 21, tpmUsed: 1 + 7 * 20 });
  await governor.close();
});

it('a coalesced call runs its items in the order they were issued, each answered alone', async () => {
  const redis = pool.open(server.url);
  const governor = governorOn(redis, 3);
  const answers = await Promise.all(Array.from({ length: 5 }, () => governor.admit('a', 1)));
  expect(answers.map((answer) => answer.ok)).toEqual([true, true, true, false, false]);
  expect(answers[3]).toMatchObject({ ok: false, gate: 'global_rpm' });
  await Promise.all(answers.filter((answer): answer is Lease => answer.ok).map((lease) => lease.finish('success', 1)));
  await governor.close();
});

it('a failed coalesced call fails each of its items closed', async () => {
  const own = await startPrivateRedis();
  const redis = pool.open(own.url);
  const governor = governorOn(redis);
  await own.stop();
  const answers = await Promise.allSettled(Array.from({ length: 3 }, () => governor.admit('a', 1)));
  expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected', 'rejected']);
  for (const answer of answers) expect((answer as PromiseRejectedResult).reason).toMatchObject({ name: 'GovernanceBackendError' });
  await governor.close();
});
