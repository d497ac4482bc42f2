import { afterAll, expect, it } from 'vitest';
import type { BreakerTicket } from '@pgw/core';
import { RedisCache, RedisBreaker, RedisLimiter } from '../src/index.js';
import { connectionPool, keysWithTtl, uniqueScope } from './redis.js';

const pool = connectionPool();
afterAll(() => pool.closeAll());

it('every key a scope or cache namespace writes has a TTL, and all of a scope share its hash tag', async () => {
  const redis = pool.open();
  const scope = uniqueScope('hygiene');
  const limits = { rpm: 100, tpm: 100_000, maxConcurrency: 10 };
  const limiter = new RedisLimiter({ redis, scope, sources: { a: limits, b: limits }, global: limits, leaseTtlMs: 30_000 });
  const breaker = new RedisBreaker({
    redis,
    scope,
    sources: ['a'],
    policy: { failureThreshold: 2, failureRate: 0.5, windowMs: 60_000, minSamples: 5, cooldownMs: 1, maxCooldownMs: 10, probeTtlMs: 5_000 },
  });
  const cache = new RedisCache({ redis, namespace: scope, maxEntries: 2 });

  for (const source of ['a', 'b']) {
    const admission = await limiter.tryEnter(source, 100);
    if (!admission.ok) throw new Error('expected admission');
    await admission.permit.settle(40);
  }
  await limiter.sourceStats('a');
  await breaker.record((await breaker.tryAcquire('a')) as BreakerTicket, 'success');
  await breaker.record((await breaker.tryAcquire('a')) as BreakerTicket, 'dead');
  await new Promise((resolve) => setTimeout(resolve, 20)); // past the 1 ms cooldown: half-open
  const probe = await breaker.tryAcquire('a');
  expect(probe).toMatchObject({ ok: true, probe: true });
  await breaker.snapshot('a');
  for (const key of ['k1', 'k2', 'k3']) await cache.set(key, 'v', 60_000);
  await cache.get('k3');

  const scoped = await keysWithTtl(redis, `pgw:{${scope}}:*`);
  expect([...scoped.keys()].sort()).toEqual(
    [
      'brk:a',
      'brk:a:samples',
      'lim:g:lease',
      'lim:g:tok',
      'lim:g:tpm',
      'lim:g:win',
      ...['a', 'b'].flatMap((s) => [`lim:s:${s}:lease`, `lim:s:${s}:tok`, `lim:s:${s}:tpm`, `lim:s:${s}:win`]),
    ]
      .map((suffix) => `pgw:{${scope}}:${suffix}`)
      .sort(),
  );
  const cached = await keysWithTtl(redis, `pgw:cache:{${scope}}:*`);
  expect([...cached.keys()].sort()).toEqual(['lru', 'seq', 'v:k2', 'v:k3'].map((s) => `pgw:cache:{${scope}}:${s}`));
  for (const [key, ttl] of [...scoped, ...cached]) expect(ttl, key).toBeGreaterThan(0);
});
