/**
 * The cache contract (docs/architecture.md#cache) every Cache adapter passes unchanged: LRU + TTL, bounded. Time moves
 * only through the factory's `now`. Each factory call must return an isolated cache (its own key space).
 */
import type { Cache, Clock } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './contract-support.js';
import { FakeClock } from './fake-clock.js';

export interface CacheFactoryOptions {
  maxEntries: number;
  now: Clock;
}

export type CacheFactory = (options: CacheFactoryOptions) => Promise<Cache> | Cache;

const TTL_MS = 60_000;

export function cacheContract(name: string, factory: CacheFactory): void {
  describe(`Cache contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup(maxEntries = 100) {
      const clock = new FakeClock();
      const cache = track(await factory({ maxEntries, now: clock.now }));
      const present = async (...keys: string[]) => {
        const found: string[] = [];
        for (const key of keys) if ((await cache.get(key)) !== undefined) found.push(key);
        return found;
      };
      return { clock, cache, present };
    }

    it('a missing key is undefined', async () => {
      const { cache } = await setup();
      expect(await cache.get('never-set')).toBeUndefined();
    });

    it.each([
      ['plain text', 'hello'],
      ['the empty string', ''],
      ['unicode (CJK, emoji, combining marks, NUL)', '多源网关 🚦👩🏽‍💻 naïve e\u0301 \u0000 end'],
      ['JSON', JSON.stringify({ content: 'ok', usage: { promptTokens: 3 }, nested: ['"quoted"', '\\'] })],
      ['a multi-megabyte value', 'ab\u00e9😀'.repeat(512 * 1024)],
    ])('round-trips %s exactly', async (_label, value) => {
      const { cache } = await setup();
      await cache.set('k', value, TTL_MS);
      expect(await cache.get('k')).toBe(value);
    });

    it('keys are exact: unicode and near-identical keys do not collide', async () => {
      const { cache } = await setup();
      await cache.set('键', 'cjk', TTL_MS);
      await cache.set('key', 'lower', TTL_MS);
      await cache.set('KEY', 'upper', TTL_MS);
      await cache.set('key ', 'space', TTL_MS);
      expect([await cache.get('键'), await cache.get('key'), await cache.get('KEY'), await cache.get('key ')]).toEqual([
        'cjk',
        'lower',
        'upper',
        'space',
      ]);
    });

    it('an entry expires ttlMs after it was set, by the injected clock', async () => {
      const { clock, cache } = await setup();
      await cache.set('k', 'v', 1_000);
      clock.advance(999);
      expect(await cache.get('k')).toBe('v');
      clock.advance(1);
      expect(await cache.get('k')).toBeUndefined();
    });

    it('an overwrite replaces the value and restarts the TTL', async () => {
      const { clock, cache } = await setup();
      await cache.set('k', 'v1', 1_000);
      clock.advance(900);
      await cache.set('k', 'v2', 1_000);
      clock.advance(900);
      expect(await cache.get('k')).toBe('v2');
      clock.advance(100);
      expect(await cache.get('k')).toBeUndefined();
    });

    it('a hit does not extend the TTL', async () => {
      const { clock, cache } = await setup();
      await cache.set('k', 'v', 1_000);
      clock.advance(500);
      expect(await cache.get('k')).toBe('v');
      clock.advance(500);
      expect(await cache.get('k')).toBeUndefined();
    });

    it('holds at most maxEntries, evicting the least recently used', async () => {
      const { cache, present } = await setup(3);
      await cache.set('a', '1', TTL_MS);
      await cache.set('b', '2', TTL_MS);
      await cache.set('c', '3', TTL_MS);
      expect(await cache.get('a')).toBe('1');
      await cache.set('d', '4', TTL_MS);
      expect(await present('a', 'b', 'c', 'd')).toEqual(['a', 'c', 'd']);
    });

    it('an overwrite also refreshes recency', async () => {
      const { cache, present } = await setup(3);
      await cache.set('a', '1', TTL_MS);
      await cache.set('b', '2', TTL_MS);
      await cache.set('c', '3', TTL_MS);
      await cache.set('a', '1bis', TTL_MS);
      await cache.set('d', '4', TTL_MS);
      expect(await present('a', 'b', 'c', 'd')).toEqual(['a', 'c', 'd']);
      expect(await cache.get('a')).toBe('1bis');
    });

    it('stays bounded under many writes', async () => {
      const { cache, present } = await setup(5);
      const keys = Array.from({ length: 50 }, (_, i) => `k${i}`);
      for (const key of keys) await cache.set(key, key, TTL_MS);
      expect(await present(...keys)).toEqual(keys.slice(-5));
    });

    it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects ttlMs %s with a RangeError', async (bad) => {
      const { cache } = await setup();
      await expect(cache.set('k', 'v', bad)).rejects.toThrow(RangeError);
      expect(await cache.get('k')).toBeUndefined();
    });

    it('two caches from the factory do not share entries', async () => {
      const one = await setup();
      const two = await setup();
      await one.cache.set('shared-name', 'one', TTL_MS);
      expect(await two.cache.get('shared-name')).toBeUndefined();
    });
  });
}
