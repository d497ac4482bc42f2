import { afterAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { BreakerTicket } from '@pgw/core';
import { RedisCache, RedisBreaker, RedisLimiter } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

/** Without an injected `now`, every decision runs on Redis `TIME`, the one clock all workers share. */
const pool = connectionPool();
const redis = pool.open();
afterAll(() => pool.closeAll());

async function serverMs(connection: Redis): Promise<number> {
  const [seconds, micros] = await connection.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describe('production clock: Redis TIME', () => {
  it('limiter windows', async () => {
    const limits = { rpm: 1, tpm: 0, maxConcurrency: 0 };
    const limiter = new RedisLimiter({ redis, scope: uniqueScope('clock'), sources: { a: limits }, global: limits, leaseTtlMs: 5_000 });
    expect((await limiter.tryEnter('a', 1)).ok).toBe(true);
    const denied = await limiter.tryEnter('a', 1);
    expect(denied).toMatchObject({ ok: false, gate: 'source_rpm' });
    const hint = (denied as { retryAfterMs: number }).retryAfterMs;
    expect(hint).toBeGreaterThan(0);
    expect(hint).toBeLessThanOrEqual(60_000);
  });

  it('breaker deadlines', async () => {
    const cooldownMs = 30_000;
    const breaker = new RedisBreaker({
      redis,
      scope: uniqueScope('clock'),
      sources: ['a'],
      policy: { failureThreshold: 3, failureRate: 0.5, windowMs: 60_000, minSamples: 10, cooldownMs, maxCooldownMs: 60_000, probeTtlMs: 5_000 },
    });
    const before = await serverMs(redis);
    await breaker.record((await breaker.tryAcquire('a')) as BreakerTicket, 'dead');
    const after = await serverMs(redis);
    const { openUntil, state } = await breaker.snapshot('a');
    expect(state).toBe('open');
    expect(openUntil).toBeGreaterThanOrEqual(before + cooldownMs);
    expect(openUntil).toBeLessThanOrEqual(after + cooldownMs);
  });

  it('cache expiry', async () => {
    const cache = new RedisCache({ redis, namespace: uniqueScope('clock') });
    await cache.set('short', 'v', 150);
    await cache.set('long', 'v', 60_000);
    expect(await cache.get('long')).toBe('v');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await cache.get('short')).toBeUndefined();
    expect(await cache.get('long')).toBe('v');
  });
});
