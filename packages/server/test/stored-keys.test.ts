/**
 * The door's cache of stored keys (unit logic over a counting fake store): a cached key reads the store
 * once, a change empties the cache, a read that began before a change does not fill it, and a key's
 * last use is written at most once a minute.
 */
import type { KeyStore, StoredKey } from '@pgw/core';
import { sampleStoredKey } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { newKey } from '../src/keys/key-material.js';
import { LAST_USED_EVERY_MS, StoredKeys } from '../src/keys/stored-keys.js';

function countingStore(records: StoredKey[]) {
  const counts = { reads: 0, touches: [] as number[] };
  let listener: () => void = () => undefined;
  let gate: Promise<void> | undefined;
  const store = {
    findByLookup: async (lookup: string) => {
      counts.reads += 1;
      await gate;
      return records.filter((record) => record.secret.lookup === lookup);
    },
    touch: async (_id: string, at: number) => void counts.touches.push(at),
    onChange: (heard: () => void) => ((listener = heard), () => undefined),
    close: async () => undefined,
  } as unknown as KeyStore;
  return { store, counts, change: () => listener(), hold: (until: Promise<void>) => (gate = until) };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('StoredKeys', () => {
  const made = newKey();
  const record = sampleStoredKey({ secret: made.secret, expiresAt: null });

  it('reads a key once, then from the cache, until a change empties it', async () => {
    const { store, counts, change } = countingStore([record]);
    const keys = new StoredKeys(async () => store, () => 0, () => undefined);
    expect((await keys.policyOf(made.key))?.tenantId).toBe('team-a');
    expect(keys.policyOf(made.key)).toMatchObject({ tenantId: 'team-a', key: { id: record.id, rpm: 10, tpm: 0, maxConcurrency: 2, budget: { usd: 1.25, window: 'day' } } });
    expect(counts.reads).toBe(1);
    change();
    await keys.policyOf(made.key);
    expect(counts.reads).toBe(2);
    // A key not shaped as a stored key reads nothing.
    expect(keys.policyOf('sk-something-else')).toBeUndefined();
    expect(counts.reads).toBe(2);
  });

  it('a read that began before a change does not fill the cache after it', async () => {
    const { store, counts, change, hold } = countingStore([record]);
    const keys = new StoredKeys(async () => store, () => 0, () => undefined);
    let release!: () => void;
    hold(new Promise<void>((resolve) => (release = resolve)));
    const pending = keys.policyOf(made.key);
    await flush();
    change();
    release();
    await pending;
    hold(Promise.resolve());
    await keys.policyOf(made.key);
    expect(counts.reads).toBe(2);
  });

  it('writes a key\'s last use at most once a minute', async () => {
    const { store, counts } = countingStore([record]);
    let now = 1_000_000;
    const keys = new StoredKeys(async () => store, () => now, () => undefined);
    await keys.policyOf(made.key);
    now += LAST_USED_EVERY_MS - 1;
    await keys.policyOf(made.key);
    now += 1;
    await keys.policyOf(made.key);
    await flush();
    expect(counts.touches).toEqual([1_000_000, 1_000_000 + LAST_USED_EVERY_MS]);
  });
});
