import { governorOf, type BreakerRefusal, type BreakerTicket } from '@pgw/core';
import { TEST_BREAKER_POLICY } from '@pgw/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryCache, InMemoryBreaker, InMemoryLimiter } from '../src/index.js';

const LIMITS = { rpm: 10, tpm: 1_000, maxConcurrency: 2 };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('construction rejects bad options, naming the key', () => {
  it.each([
    [{ leaseTtlMs: 0 }, /leaseTtlMs/],
    [{ sources: { a: { ...LIMITS, rpm: -1 } } }, /sources\.a\.rpm/],
    [{ sources: { a: { ...LIMITS, tpm: 1.5 } } }, /sources\.a\.tpm/],
    [{ global: { ...LIMITS, maxConcurrency: Number.NaN } }, /global\.maxConcurrency/],
  ])('InMemoryLimiter %j', (bad, message) => {
    const options = { scope: 'S', sources: { a: LIMITS }, global: LIMITS, leaseTtlMs: 1_000, ...bad };
    expect(() => new InMemoryLimiter(options)).toThrow(RangeError);
    expect(() => new InMemoryLimiter(options)).toThrow(message);
  });

  it.each([
    [{ failureThreshold: 0 }, /policy\.failureThreshold/],
    [{ minSamples: 2.5 }, /policy\.minSamples/],
    [{ failureRate: 0 }, /policy\.failureRate/],
    [{ failureRate: 1.1 }, /policy\.failureRate/],
    [{ windowMs: -1 }, /policy\.windowMs/],
    [{ probeTtlMs: Number.POSITIVE_INFINITY }, /policy\.probeTtlMs/],
    [{ maxCooldownMs: 500 }, /policy\.maxCooldownMs/],
  ])('InMemoryBreaker %j', (bad, message) => {
    expect(() => new InMemoryBreaker({ scope: 'S', sources: ['a'], policy: { ...TEST_BREAKER_POLICY, ...bad } })).toThrow(message);
  });

  it.each([0, -3, 1.5])('InMemoryCache maxEntries %s', (maxEntries) => {
    expect(() => new InMemoryCache({ maxEntries })).toThrow(/maxEntries/);
  });
});

describe('defaults', () => {
  it('reads Date.now when no clock is injected', async () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const cache = new InMemoryCache();
    const limiter = new InMemoryLimiter({ scope: 'S', sources: { a: LIMITS }, global: LIMITS, leaseTtlMs: 5_000 });
    await cache.set('k', 'v', 1_000);
    expect(await limiter.tryEnter('a', 1)).toMatchObject({ ok: true });
    now.mockReturnValue(1_005_000);
    expect(await cache.get('k')).toBeUndefined();
    expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 1 });
  });

  it('a cache holds 1000 entries by default', async () => {
    const cache = new InMemoryCache();
    for (let i = 0; i <= 1_000; i++) await cache.set(`k${i}`, 'v', 60_000);
    expect([await cache.get('k0'), await cache.get('k1'), await cache.get('k1000')]).toEqual([undefined, 'v', 'v']);
  });
});

it('takes no timer: every expiry is checked lazily by the next operation', async () => {
  vi.useFakeTimers();
  let t = 0;
  const now = () => t;
  const limiter = new InMemoryLimiter({ scope: 'S', sources: { a: LIMITS }, global: LIMITS, leaseTtlMs: 1_000, now });
  const breaker = new InMemoryBreaker({ scope: 'S', sources: ['a'], policy: { ...TEST_BREAKER_POLICY, failureThreshold: 1 }, now });
  const cache = new InMemoryCache({ now });
  await limiter.tryEnter('a', 10);
  breaker.record(admitted(breaker.tryAcquire('a')), 'failure');
  await cache.set('k', 'v', 10);
  t = 1_000;
  admitted(breaker.tryAcquire('a'));
  expect(vi.getTimerCount()).toBe(0);
  expect(await limiter.sourceStats('a')).toMatchObject({ inflight: 0 });
  expect(await breaker.snapshot('a')).toMatchObject({ state: 'half_open', probeHeld: true });
  expect(await cache.get('k')).toBeUndefined();
});

function admitted(answer: BreakerTicket | BreakerRefusal): BreakerTicket {
  if (!answer.ok) throw new Error(`refused while ${answer.state}`);
  return answer;
}

describe('governorOf(limiter, breaker) keeps no spend budget', () => {
  it('has no budgetStatus, and refuses a budgeted attempt with an error instead of admitting it unbudgeted', async () => {
    const limiter = new InMemoryLimiter({ scope: 'S', sources: { a: LIMITS }, global: LIMITS, leaseTtlMs: 1_000 });
    const breaker = new InMemoryBreaker({ scope: 'S', sources: ['a'], policy: TEST_BREAKER_POLICY });
    const governor = governorOf(limiter, breaker);
    expect(governor.budgetStatus).toBeUndefined();
    await expect(governor.admit('a', 1, undefined, { reserveUsd: 0.5 })).rejects.toThrow(/keeps no spend budget/);
    expect(limiter.sourceStats('a')).toMatchObject({ inflight: 0 });
    expect(breaker.snapshot('a')).toMatchObject({ probeHeld: false });
  });
});
