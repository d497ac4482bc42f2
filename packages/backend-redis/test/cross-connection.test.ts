import { afterAll, describe, expect, it } from 'vitest';
import type { BreakerTicket, GlobalLimits, Limiter, SourceLimits } from '@pgw/core';
import { FakeClock, TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import { RedisBreaker, RedisLimiter } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

/** Two workers = two independent connections (as two processes would have) on one scope. */
const pool = connectionPool();
afterAll(() => pool.closeAll());

const POLICY = { ...TEST_BREAKER_POLICY, failureThreshold: 2 };

function twoLimiters(sources: Record<string, SourceLimits>, global: GlobalLimits = UNLIMITED, clock?: FakeClock) {
  const scope = uniqueScope('cross');
  const make = () =>
    new RedisLimiter({ redis: pool.open(), scope, sources, global, leaseTtlMs: 10_000, ...(clock && { now: clock.now }) });
  return [make(), make()] as const;
}

function twoBreakers(clock: FakeClock) {
  const scope = uniqueScope('cross');
  const make = () => new RedisBreaker({ redis: pool.open(), scope, sources: ['a'], policy: POLICY, now: clock.now });
  return [make(), make()] as const;
}

async function admitted(limiter: Limiter, source: string, est: number, attempts: number): Promise<number> {
  const answers = await Promise.all(Array.from({ length: attempts }, () => limiter.tryEnter(source, est)));
  return answers.filter((a) => a.ok).length;
}

describe('two connections on one scope', () => {
  it('share RPM, TPM and concurrency quota exactly under concurrent entry', async () => {
    const [one, two] = twoLimiters({
      rpm: { ...UNLIMITED, rpm: 7 },
      tpm: { ...UNLIMITED, tpm: 1_000 },
      slots: { ...UNLIMITED, maxConcurrency: 5 },
    });
    for (const [source, est, expected] of [
      ['rpm', 1, 7],
      ['tpm', 100, 10],
      ['slots', 1, 5],
    ] as const) {
      const [a, b] = await Promise.all([admitted(one, source, est, 20), admitted(two, source, est, 20)]);
      expect(a + b, source).toBe(expected);
      expect(await one.sourceStats(source)).toEqual(await two.sourceStats(source));
    }
  });

  it('settle and release through one worker are seen by the other', async () => {
    const [one, two] = twoLimiters({ a: { ...UNLIMITED, tpm: 1_000, maxConcurrency: 1 } });
    const admission = await one.tryEnter('a', 950);
    if (!admission.ok) throw new Error('expected admission');
    expect(await two.tryEnter('a', 100)).toMatchObject({ ok: false, gate: 'source_tpm' });
    await admission.permit.settle(100);
    expect(await two.tryEnter('a', 100)).toMatchObject({ ok: false, gate: 'source_concurrency' });
    await admission.permit.release();
    expect(await two.tryEnter('a', 100)).toMatchObject({ ok: true });
    expect(await two.sourceStats('a')).toEqual({ inflight: 1, rpmUsed: 2, tpmUsed: 200 });
  });

  it('a worker that takes a permit and disappears has its slot reclaimed by lease expiry', async () => {
    const clock = new FakeClock();
    const scope = uniqueScope('cross');
    const options = { scope, sources: { a: { ...UNLIMITED, maxConcurrency: 1 } }, global: UNLIMITED, leaseTtlMs: 10_000, now: clock.now };
    const doomed = pool.open();
    const crashed = new RedisLimiter({ redis: doomed, ...options });
    const survivor = new RedisLimiter({ redis: pool.open(), ...options });
    expect((await crashed.tryEnter('a', 50)).ok).toBe(true);
    doomed.disconnect();
    expect(await survivor.tryEnter('a', 1)).toMatchObject({ ok: false, gate: 'source_concurrency' });
    clock.advance(9_999);
    expect((await survivor.sourceStats('a')).inflight).toBe(1);
    clock.advance(1);
    expect(await survivor.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 50 });
    expect((await survivor.tryEnter('a', 1)).ok).toBe(true);
  });

  it('a half-open probe leased by one worker is not granted to the other until released or expired', async () => {
    const clock = new FakeClock();
    const [one, two] = twoBreakers(clock);
    for (let i = 0; i < POLICY.failureThreshold; i++) await one.record((await one.tryAcquire('a')) as BreakerTicket, 'failure');
    clock.advance(POLICY.cooldownMs);

    const probe = await one.tryAcquire('a');
    expect(probe).toMatchObject({ ok: true, probe: true });
    expect(await two.tryAcquire('a')).toEqual({ ok: false, source: 'a', state: 'half_open', retryAfterMs: POLICY.probeTtlMs });
    await one.releaseProbe(probe as BreakerTicket);
    const taken = await two.tryAcquire('a');
    expect(taken).toMatchObject({ ok: true, probe: true });

    expect(await one.tryAcquire('a')).toMatchObject({ ok: false, state: 'half_open' });
    clock.advance(POLICY.probeTtlMs);
    const retaken = await one.tryAcquire('a');
    expect(retaken).toMatchObject({ ok: true, probe: true });
    // The expired holder's verdict is fenced; the current holder's closes the breaker.
    await two.record(taken as BreakerTicket, 'success');
    expect((await one.snapshot('a')).state).toBe('half_open');
    await one.record(retaken as BreakerTicket, 'success');
    expect((await two.snapshot('a')).state).toBe('closed');
  });

  it("a stale-epoch write-back from one worker is ignored after the other changed the state", async () => {
    const clock = new FakeClock();
    const [one, two] = twoBreakers(clock);
    const late = (await one.tryAcquire('a')) as BreakerTicket;
    await two.record((await two.tryAcquire('a')) as BreakerTicket, 'dead');
    const open = await two.snapshot('a');
    expect(open).toMatchObject({ state: 'open' });
    expect(open.epoch).toBeGreaterThan(late.epoch);
    await one.record(late, 'success');
    expect(await two.snapshot('a')).toEqual(open);
  });
});
