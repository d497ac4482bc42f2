/** The lazy selectors and the health_aware ranking kept between stats reads (clock and rng injected). */
import { deferred } from '@pgw/testkit';
import type { SourceStats } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { createSelector, DEFAULT_STATS_EVERY_MS, HealthBook, largerWindows, type Selector, type SelectorDeps, type SelectorEntry } from './helpers/internals.js';
import { AccountingLimiter, ManualClock, source } from './helpers/fakes.js';
import { drain, settled } from './helpers/walks.js';

const first = (selector: Selector) => selector.walk().next()!.name;
const names = (selector: Selector) => drain(selector.walk()).map((s) => s.name);

function ranking(overrides: Partial<SelectorDeps> = {}) {
  const clock = new ManualClock();
  const limiter = new AccountingLimiter();
  const health = new HealthBook();
  const deps: SelectorDeps = {
    sources: ['a', 'b', 'c'].map((name) => source(name, { maxConcurrency: 2 })),
    governor: limiter,
    health,
    rng: () => 0.5,
    now: clock.now,
    ...overrides,
  };
  const selector = createSelector('health_aware', deps);
  const byName = (name: string) => deps.sources.find((s) => s.name === name)!;
  return { clock, limiter, health, selector, byName, deps };
}

describe('health_aware ranking', () => {
  it('counts this process’s attempts as they enter, so a burst spreads instead of piling on one source', () => {
    const { selector, byName } = ranking();
    const picks: string[] = [];
    const entries = new Map<string, SelectorEntry>();
    for (let i = 0; i < 6; i += 1) {
      const name = first(selector);
      picks.push(name);
      entries.set(name, selector.entering(byName(name), 100));
    }
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(first(selector)).toBe('a'); // all full: the configured order
    entries.get('b')!.left();
    expect(first(selector)).toBe('b');
  });

  it('ranks a source that just refused as full until room is freed on it or the stats are read again', async () => {
    const { selector, byName, clock } = ranking();
    const inFlight = selector.entering(byName('a'), 100);
    selector.entering(byName('a'), 100).left();
    const refused = selector.entering(byName('a'), 100);
    refused.refused(); // one of two in flight, yet refused (another process, a window)
    refused.refused(); // a handle settles once
    expect(names(selector)).toEqual(['b', 'c', 'a']);
    selector.entering(byName('b'), 100).refused();
    expect(names(selector)).toEqual(['c', 'a', 'b']);
    inFlight.left(); // its attempt ended: room there again
    inFlight.left();
    expect(names(selector)).toEqual(['a', 'c', 'b']);
    clock.advance(DEFAULT_STATS_EVERY_MS);
    selector.walk();
    await settled();
    expect(names(selector)).toEqual(['a', 'b', 'c']);
  });

  it('reads every source’s stats at most once per interval, one read at a time, never on the walk’s path', async () => {
    const reads: string[] = [];
    const pending = deferred();
    const limiter = new AccountingLimiter();
    limiter.sourceStats = async (name): Promise<SourceStats> => {
      reads.push(name);
      await pending.promise;
      return { inflight: name === 'a' ? 2 : 0, rpmUsed: 0, tpmUsed: 0 };
    };
    const { selector, clock } = ranking({ governor: limiter });
    expect(first(selector)).toBe('a'); // the read went out; the walk did not wait for it
    expect(reads).toEqual(['a', 'b', 'c']);
    clock.advance(10 * DEFAULT_STATS_EVERY_MS);
    selector.walk();
    expect(reads).toHaveLength(3); // one read in flight at a time
    pending.resolve();
    await settled();
    expect(first(selector)).toBe('b'); // a is full elsewhere; the interval had passed, so a second read went out
    expect(reads).toHaveLength(6);
    await settled();
    clock.advance(DEFAULT_STATS_EVERY_MS - 1);
    selector.walk();
    expect(reads).toHaveLength(6);
    clock.advance(1);
    selector.walk();
    expect(reads).toHaveLength(9);
  });

  it('adds what this process entered after a read went out to the figures that read brings back', async () => {
    const pending = deferred();
    const limiter = new AccountingLimiter();
    limiter.sourceStats = async (name): Promise<SourceStats> => {
      await pending.promise;
      return { inflight: 0, rpmUsed: name === 'a' ? 5 : 0, tpmUsed: 0 };
    };
    const sources = ['a', 'b'].map((name) => source(name, { rpm: 10 }));
    const { selector } = ranking({ governor: limiter, sources });
    selector.walk(); // the read goes out
    selector.entering(sources[1]!, 0); // b: 1 of 10 requests this minute, not in the read's figures
    pending.resolve();
    await settled();
    expect(names(selector)).toEqual(['b', 'a']); // a 5/10 used, b 1/10
  });

  it('subtracts this process’s own attempts from the in-flight count it reads (they are counted locally)', async () => {
    const limiter = new AccountingLimiter();
    const { selector, byName, clock } = ranking({ governor: limiter });
    selector.entering(byName('a'), 100);
    await limiter.tryEnter('a', 100); // the store sees the same attempt
    clock.advance(DEFAULT_STATS_EVERY_MS);
    selector.walk();
    await settled();
    expect(first(selector)).toBe('b');
    selector.entering(byName('b'), 100);
    expect(first(selector)).toBe('c'); // a and b one of two each, not a two of two
    selector.entering(byName('c'), 100);
    expect(first(selector)).toBe('a');
  });

  it('re-positions a source when its health changes', () => {
    const { selector, health } = ranking();
    health.onSuccess('a', 1_000); // latency factor 1/2
    expect(names(selector)).toEqual(['b', 'c', 'a']);
    health.onSuccess('c', 10);
    expect(names(selector)).toEqual(['b', 'c', 'a']);
    health.onFailure('b');
    health.onFailure('b');
    expect(names(selector)).toEqual(['c', 'b', 'a']); // b 0.64, a 0.5
  });

  it('keeps the figures it had when a read fails, and says so', async () => {
    const errors: unknown[] = [];
    const limiter = new AccountingLimiter();
    const { selector, clock } = ranking({ governor: limiter, onStatsError: (error) => errors.push(error) });
    await limiter.tryEnter('a', 0);
    await limiter.tryEnter('a', 0);
    selector.walk();
    await settled();
    expect(first(selector)).toBe('b');
    const failure = new Error('store down');
    limiter.sourceStats = () => Promise.reject(failure);
    clock.advance(DEFAULT_STATS_EVERY_MS);
    expect(first(selector)).toBe('b');
    await settled();
    expect(errors).toEqual([failure]);
    expect(first(selector)).toBe('b');
  });

  it('stays a valid order through many random changes: every source once, best first', () => {
    let seed = 7;
    const rng = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const sources = Array.from({ length: 40 }, (_, i) => source(`s${i}`, { maxConcurrency: 1 + (i % 5) }));
    const { selector, health } = ranking({ sources });
    const inflight = new Map<string, number>();
    const entries = new Map<string, SelectorEntry[]>();
    for (let step = 0; step < 2_000; step += 1) {
      const pick = sources[Math.floor(rng() * sources.length)]!;
      const roll = rng();
      if (roll < 0.4) {
        entries.set(pick.name, [...(entries.get(pick.name) ?? []), selector.entering(pick, 10)]);
        inflight.set(pick.name, (inflight.get(pick.name) ?? 0) + 1);
      } else if (roll < 0.7 && (inflight.get(pick.name) ?? 0) > 0) {
        entries.get(pick.name)!.pop()!.left();
        inflight.set(pick.name, inflight.get(pick.name)! - 1);
      } else if (roll < 0.85) health.onSuccess(pick.name, rng() * 2_000);
      else health.onFailure(pick.name);
      const order = names(selector);
      expect(new Set(order).size).toBe(sources.length);
      expect(order[0]).toBe(first(selector));
    }
    const score = (name: string) => {
      const s = sources.find((x) => x.name === name)!;
      const latency = health.latencyMs(name);
      const room = Math.max(0, 1 - (inflight.get(name) ?? 0) / s.maxConcurrency);
      return health.successRate(name) * (latency === undefined ? 1 : 1 / (1 + latency / 1_000)) * room;
    };
    const scores = names(selector).map(score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });
});

describe('lazy walks', () => {
  const clock = new ManualClock();
  const deps = (overrides: Partial<SelectorDeps> = {}): SelectorDeps => ({
    sources: [source('a'), source('b'), source('c')],
    governor: new AccountingLimiter(),
    health: new HealthBook(),
    rng: () => 0.5,
    now: clock.now,
    ...overrides,
  });

  it('weighted draws only the first pick until the rest is asked for', () => {
    let draws = 0;
    const sources = [source('a', { weight: 1 }), source('b', { weight: 2 }), source('c', { weight: 1 })];
    const selector = createSelector('weighted', deps({ sources, rng: () => (draws++, 0.6) }));
    const walk = selector.walk();
    expect(walk.next()!.name).toBe('b'); // 0.6 × 4 = 2.4 falls in b's [1, 3)
    expect(draws).toBe(1);
    expect([walk.next(), walk.next(), walk.next()].map((s) => s?.name)).toEqual(['a', 'c', undefined]);
  });

  it('weighted picks by cumulative weight, skips weight 0, and keeps the configured order when nothing weighs', () => {
    const sources = [source('z', { weight: 0 }), source('a', { weight: 1 }), source('b', { weight: 1 })];
    expect(first(createSelector('weighted', deps({ sources, rng: () => 0 })))).toBe('a');
    expect(first(createSelector('weighted', deps({ sources, rng: () => 0.99 })))).toBe('b');
    expect(names(createSelector('weighted', deps({ sources, rng: () => 0.99 })))).toEqual(['b', 'a', 'z']);
    const weightless = sources.map((s) => ({ ...s, weight: 0 }));
    expect(names(createSelector('weighted', deps({ sources: weightless })))).toEqual(['z', 'a', 'b']);
  });

  it('largerWindows keeps only sources whose declared window is larger', () => {
    const sources = [source('a', { contextWindow: 8_000 }), source('b'), source('c', { contextWindow: 32_000 })];
    const order = createSelector('ordered', deps({ sources })).walk();
    expect(drain(largerWindows(order, 8_000)).map((s) => s.name)).toEqual(['c']);
  });
});
