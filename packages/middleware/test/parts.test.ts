/** Unit tests of the retry loop's parts: backoff, pacer, selectors, stall clock, settlement. */
import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  createSelector,
  DEFAULT_STATS_EVERY_MS,
  deprioritiseFailed,
  HealthBook,
  headroom,
  Pacer,
  ScopeProgress,
  Settlement,
  StallClock,
  type Selector,
} from './helpers/internals.js';
import { AccountingLimiter, ManualClock, source, usage } from './helpers/fakes.js';
import { drain, settled } from './helpers/walks.js';

describe('backoff', () => {
  const policy = { backoffBaseMs: 1_000, backoffMaxMs: 30_000 };

  it('is exponential with full jitter, capped by backoffMax', () => {
    expect(backoffDelayMs(0, policy, () => 0.5)).toBe(500);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(4_000);
    expect(backoffDelayMs(10, policy, () => 0.999)).toBeCloseTo(29_970);
    expect(backoffDelayMs(2, policy, () => 0)).toBe(0);
  });

  it('takes max(jittered, Retry-After) and honours a finite hint above the cap', () => {
    expect(backoffDelayMs(0, policy, () => 0.5, 200)).toBe(500);
    expect(backoffDelayMs(0, policy, () => 0.5, 3_600_000)).toBe(3_600_000);
    expect(backoffDelayMs(0, policy, () => 0.5, Number.POSITIVE_INFINITY)).toBe(500);
  });
});

describe('pacer (AIMD)', () => {
  it('caps concurrency, halves on 429 down to 1, and climbs back one step per success', () => {
    const pacer = new Pacer([source('a', { maxConcurrency: 4 })]);
    expect([1, 2, 3, 4, 5].map(() => pacer.tryEnter('a'))).toEqual([true, true, true, true, false]);
    pacer.onRateLimited('a');
    expect(pacer.snapshot('a')).toEqual({ cap: 2, inflight: 4 });
    pacer.onRateLimited('a');
    pacer.onRateLimited('a');
    expect(pacer.snapshot('a').cap).toBe(1);
    for (let i = 0; i < 4; i += 1) pacer.leave('a');
    for (let i = 0; i < 10; i += 1) pacer.onSuccess('a');
    expect(pacer.snapshot('a').cap).toBe(4); // never above the advertised limit
  });

  it('an unlimited source learns a cap from what was in flight when it pushed back', () => {
    const pacer = new Pacer([source('a', { maxConcurrency: 0 })]);
    for (let i = 0; i < 6; i += 1) expect(pacer.tryEnter('a')).toBe(true);
    pacer.onRateLimited('a');
    expect(pacer.snapshot('a').cap).toBe(3);
    pacer.onSuccess('a');
    expect(pacer.snapshot('a').cap).toBe(4);
  });
});

describe('selectors', () => {
  const sources = [source('a'), source('b'), source('c')];
  const clock = new ManualClock();
  const deps = (overrides = {}) => ({
    sources,
    governor: new AccountingLimiter(),
    health: new HealthBook(),
    rng: () => 0.5,
    now: clock.now,
    ...overrides,
  });
  const names = (selector: Selector) => drain(selector.walk()).map((s) => s.name);

  it('ordered keeps the configured order', () => {
    expect(names(createSelector('ordered', deps()))).toEqual(['a', 'b', 'c']);
  });

  it('round_robin rotates the starting source', () => {
    const selector = createSelector('round_robin', deps());
    expect([names(selector), names(selector), names(selector), names(selector)]).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['a', 'b', 'c'],
    ]);
  });

  it('weighted prefers heavier sources in proportion and never picks weight 0 first', () => {
    const weighted = [source('a', { weight: 1 }), source('b', { weight: 3 }), source('z', { weight: 0 })];
    let seed = 1;
    const rng = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const selector = createSelector('weighted', deps({ sources: weighted, rng }));
    const firsts = { a: 0, b: 0, z: 0 };
    for (let i = 0; i < 4000; i += 1) firsts[selector.walk().next()!.name as 'a' | 'b' | 'z'] += 1;
    expect(firsts.z).toBe(0);
    expect(firsts.b / 4000).toBeGreaterThan(0.7);
    expect(firsts.b / 4000).toBeLessThan(0.8);
  });

  it('health_aware ranks by success EWMA × latency × headroom, with source order breaking ties', async () => {
    const health = new HealthBook();
    const limiter = new AccountingLimiter();
    const limited = [source('a', { maxConcurrency: 10 }), source('b', { maxConcurrency: 10 }), source('c', { maxConcurrency: 10 })];
    const selector = createSelector('health_aware', deps({ sources: limited, health, governor: limiter }));
    expect(names(selector)).toEqual(['a', 'b', 'c']); // all equal: configured order
    health.onFailure('a');
    expect(names(selector)).toEqual(['b', 'c', 'a']);
    health.onSuccess('b', 100); // a little slower than unmeasured, still healthier than a
    expect(names(selector)).toEqual(['c', 'b', 'a']);
    for (let i = 0; i < 9; i += 1) await limiter.tryEnter('c', 0); // c nearly full, seen at the next stats read
    clock.advance(DEFAULT_STATS_EVERY_MS);
    selector.walk();
    await settled();
    expect(names(selector)).toEqual(['b', 'a', 'c']);
  });

  it('health_aware with a single source reads no stats: one source has one order', () => {
    const limiter = new AccountingLimiter();
    let statsRead = 0;
    limiter.sourceStats = async () => {
      statsRead += 1;
      return { inflight: 0, rpmUsed: 0, tpmUsed: 0 };
    };
    const selector = createSelector('health_aware', deps({ sources: [source('solo')], governor: limiter }));
    expect([names(selector), names(selector)]).toEqual([['solo'], ['solo']]);
    expect(statsRead).toBe(0);
  });

  it('headroom is the tightest remaining fraction; unlimited gates leave full room', () => {
    expect(headroom(source('a'), { inflight: 50, rpmUsed: 1_000, tpmUsed: 1e9 })).toBe(1);
    expect(headroom(source('a', { rpm: 100, tpm: 1_000 }), { inflight: 0, rpmUsed: 25, tpmUsed: 900 })).toBeCloseTo(0.1);
    expect(headroom(source('a', { maxConcurrency: 2 }), { inflight: 3, rpmUsed: 0, tpmUsed: 0 })).toBe(0);
  });

  it('sources that failed in this call go last, least recently failed first', () => {
    const [a, b, c] = sources;
    const ordered = () => createSelector('ordered', deps()).walk();
    expect(drain(deprioritiseFailed(ordered(), [b!, a!])).map((s) => s.name)).toEqual(['c', 'b', 'a']);
    expect(drain(deprioritiseFailed(ordered(), [])).map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(drain(deprioritiseFailed(ordered(), [c!])).map((s) => s.name)).toEqual(['a', 'b', 'c']);
  });
});

describe('stall clock', () => {
  it('stalls only when the call waited the window AND the scope made no progress for it', () => {
    const clock = new ManualClock();
    const progress = new ScopeProgress(clock.now);
    const stall = new StallClock(progress, 1_000, 'LLM');
    stall.addWaiting(1_000);
    clock.advance(999);
    expect(() => stall.assertNotStalled({})).not.toThrow(); // scope progressed 999 ms ago
    clock.advance(1);
    expect(() => stall.assertNotStalled({ a: 'paced' })).toThrow(expect.objectContaining({ reason: 'stalled', perSourceReasons: { a: 'paced' } }));
    progress.markProgress();
    expect(() => stall.assertNotStalled({})).not.toThrow();

    const fresh = new StallClock(progress, 1_000, 'LLM');
    clock.advance(1e9);
    fresh.addWaiting(999);
    expect(() => fresh.assertNotStalled({})).not.toThrow(); // this call has not waited the window
  });
});

describe('settlement', () => {
  it('keeps known usage over any branch value and settles 0 when nothing was decided', () => {
    const known = new Settlement('tokens', 400);
    known.learnUsage(usage(0, 0));
    known.decide('cancelled');
    expect(known.value()).toBe(0);

    const undecided = new Settlement('tokens', 400);
    expect(undecided.value()).toBe(0);

    const values = (['cancelled', 'transient', 'dead', 'rejected', 'invalid'] as const).map((branch) => {
      const s = new Settlement('tokens', 400);
      s.decide(branch);
      s.decide('dead'); // a second decision never overwrites the first
      return s.value();
    });
    expect(values).toEqual([400, 400, 0, 0, 0]);

    const ocr = new Settlement('none', 400);
    ocr.learnUsage(usage(10, 10));
    ocr.decide('cancelled');
    expect(ocr.value()).toBe(0);
  });
});
