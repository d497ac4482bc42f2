/**
 * The record store contract (docs/architecture.md#record-store) every RecordStore adapter passes
 * unchanged: exact round trips, a TTL per record, replace and delete. Time moves only through the
 * factory's `now`. Each factory call must return an isolated store (its own key space).
 */
import type { Clock, RecordStore } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './contract-support.js';
import { FakeClock } from './fake-clock.js';

export type RecordStoreFactory = (options: { now: Clock }) => Promise<RecordStore> | RecordStore;

const TTL_MS = 60_000;

export function recordStoreContract(name: string, factory: RecordStoreFactory): void {
  describe(`RecordStore contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup() {
      const clock = new FakeClock();
      return { clock, store: track(await factory({ now: clock.now })) };
    }

    it('a missing key is undefined, and deleting it is false', async () => {
      const { store } = await setup();
      expect(await store.get('never-set')).toBeUndefined();
      expect(await store.delete('never-set')).toBe(false);
    });

    it.each([
      ['the empty string', ''],
      ['unicode (CJK, emoji, NUL)', '多源网关 🚦👩🏽‍💻 \u0000 end'],
      ['JSON', JSON.stringify({ output: [{ type: 'message', content: '"quoted" \\' }] })],
      ['a multi-megabyte value', 'ab\u00e9😀'.repeat(512 * 1024)],
    ])('round-trips %s exactly', async (_label, value) => {
      const { store } = await setup();
      await store.set('k', value, TTL_MS);
      expect(await store.get('k')).toBe(value);
    });

    it('keys are exact, braces included', async () => {
      const { store } = await setup();
      await store.set('a/{t}/1', 'braced', TTL_MS);
      await store.set('a/t/1', 'plain', TTL_MS);
      await store.set('键', 'cjk', TTL_MS);
      expect([await store.get('a/{t}/1'), await store.get('a/t/1'), await store.get('键')]).toEqual(['braced', 'plain', 'cjk']);
    });

    it('a record lives for its TTL and not a millisecond longer', async () => {
      const { clock, store } = await setup();
      await store.set('k', 'v', 1000);
      clock.advance(999);
      expect(await store.get('k')).toBe('v');
      clock.advance(1);
      expect(await store.get('k')).toBeUndefined();
      expect(await store.delete('k')).toBe(false);
    });

    it('set replaces the value and restarts the TTL', async () => {
      const { clock, store } = await setup();
      await store.set('k', 'first', 1000);
      clock.advance(900);
      await store.set('k', 'second', 1000);
      clock.advance(900);
      expect(await store.get('k')).toBe('second');
    });

    it('delete removes the record once: true, then false', async () => {
      const { store } = await setup();
      await store.set('k', 'v', TTL_MS);
      await store.set('other', 'kept', TTL_MS);
      expect(await store.delete('k')).toBe(true);
      expect(await store.get('k')).toBeUndefined();
      expect(await store.delete('k')).toBe(false);
      expect(await store.get('other')).toBe('kept');
    });

    it('refuses a TTL that is not positive and a value that is not a string', async () => {
      const { store } = await setup();
      await expect(store.set('k', 'v', 0)).rejects.toThrow(RangeError);
      await expect(store.set('k', 7 as unknown as string, TTL_MS)).rejects.toThrow(TypeError);
      expect(await store.get('k')).toBeUndefined();
    });
  });
}
