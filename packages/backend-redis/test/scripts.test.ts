import { afterAll, expect, it } from 'vitest';
import type { LimitAdmission, Permit } from '@pgw/core';
import { UNLIMITED, startPrivateRedis } from '@pgw/testkit';
import { RedisLimiter } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
afterAll(() => pool.closeAll());

function permitOf(admission: LimitAdmission): Permit {
  if (!admission.ok) throw new Error(`expected admission, denied by ${admission.gate}`);
  return admission.permit;
}

it('settle is idempotent in the script itself, not only in the permit object', async () => {
  const limiter = new RedisLimiter({
    redis: pool.open(),
    scope: uniqueScope('scripts'),
    sources: { a: UNLIMITED },
    global: UNLIMITED,
    leaseTtlMs: 30_000,
  });
  const permit = permitOf(await limiter.tryEnter('a', 100));
  // Both calls reach Redis before either returns (as a retried settle whose reply was lost would).
  await Promise.all([permit.settle(40), permit.settle(10), permit.release(), permit.release()]);
  expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 40 });
});

it('scripts flushed from the server (restart, SCRIPT FLUSH) are loaded again transparently', async () => {
  const server = await startPrivateRedis();
  try {
    const redis = pool.open(server.url);
    const limiter = new RedisLimiter({ redis, scope: uniqueScope('scripts'), sources: { a: UNLIMITED }, global: UNLIMITED, leaseTtlMs: 30_000 });
    const first = permitOf(await limiter.tryEnter('a', 100));
    await redis.script('FLUSH');
    await first.settle(60);
    permitOf(await limiter.tryEnter('a', 1));
    expect(await limiter.sourceStats('a')).toEqual({ inflight: 2, rpmUsed: 2, tpmUsed: 61 });
  } finally {
    await server.stop();
  }
});
