/**
 * The key store contract every KeyStore adapter passes unchanged (@pgw/keys-sqlite on a real SQLite
 * file, @pgw/keys-pg on a real PostgreSQL): exact round trips of a record, the lookup by its current
 * and previous secret, read-modify-write without a lost update, the audit log, the last use written
 * apart, and the change signal heard by a second store on the same place. Each factory call returns
 * an isolated place (its own file, its own schema); `open` may be called several times on it.
 */
import { randomBytes } from 'node:crypto';
import type { KeyAuditEntry, KeyStore, StoredKey } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './contract-support.js';
import { deferred } from './deferred.js';

export interface KeyStorePlace {
  open(): Promise<KeyStore>;
  close(): Promise<void>;
}

export type KeyStoreFactory = () => Promise<KeyStorePlace>;

const secret = (lookup: string) => ({ lookup, salt: new Uint8Array(randomBytes(16)), digest: new Uint8Array(randomBytes(32)) });

let serial = 0;
/** A key record with every field set away from its default. */
export function sampleStoredKey(overrides: Partial<StoredKey> = {}): StoredKey {
  serial += 1;
  return {
    id: `key_${serial.toString(16).padStart(16, '0')}`,
    name: 'app 多源 🚦',
    tenant: 'team-a',
    models: ['gpt-4o-mini', 'text-embedding-3-small'],
    mcp: null,
    priority: 'batch',
    limits: { rpm: 10, tpm: 0, maxConcurrency: 2 },
    budget: { usd: 1.25, window: 'day' },
    expiresAt: 4_000_000_000_000,
    createdAt: 1_700_000_000_000 + serial,
    lastUsedAt: null,
    state: 'active',
    prefix: 'pgw_sk_abcd',
    secret: secret(`look${String(serial).padStart(4, '0')}`),
    previous: null,
    ...overrides,
  };
}

const auditOf = (key: StoredKey, action: KeyAuditEntry['action'], at = key.createdAt): KeyAuditEntry => ({ at, actor: 'admin:0123456789ab', action, keyId: key.id, changes: { name: key.name } });

export function keyStoreContract(name: string, factory: KeyStoreFactory): void {
  describe(`KeyStore contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup() {
      const place = track(await factory());
      return { place, store: track(await place.open()) };
    }

    it('round-trips a record exactly, its digests byte for byte', async () => {
      const { store } = await setup();
      const key = sampleStoredKey({ previous: { ...secret('prevlook'), validUntil: 1_800_000_000_000 }, mcp: ['files'] });
      await store.insert(key, auditOf(key, 'create'));
      expect(await store.get(key.id)).toEqual(key);
      const bare = sampleStoredKey({ models: null, budget: null, expiresAt: null, priority: 'interactive' });
      await store.insert(bare, auditOf(bare, 'create'));
      expect(await store.get(bare.id)).toEqual(bare);
    });

    it('an unknown id is undefined, and updating it changes nothing', async () => {
      const { store } = await setup();
      expect(await store.get('key_ffffffffffffffff')).toBeUndefined();
      expect(await store.update('key_ffffffffffffffff', () => { throw new Error('not called'); })).toBeUndefined();
      expect(await store.auditLog({ limit: 10 })).toEqual([]);
    });

    it('finds a key by its current lookup and, during a rotation, by its previous one', async () => {
      const { store } = await setup();
      const key = sampleStoredKey({ previous: { ...secret('oldlook1'), validUntil: 1_800_000_000_000 } });
      const other = sampleStoredKey();
      await store.insert(key, auditOf(key, 'create'));
      await store.insert(other, auditOf(other, 'create'));
      expect((await store.findByLookup(key.secret.lookup)).map((found) => found.id)).toEqual([key.id]);
      expect((await store.findByLookup('oldlook1')).map((found) => found.id)).toEqual([key.id]);
      expect(await store.findByLookup('nolookup')).toEqual([]);
    });

    it('an update replaces the record and writes its audit row in one step; a change of nothing writes neither', async () => {
      const { store } = await setup();
      const key = sampleStoredKey();
      await store.insert(key, auditOf(key, 'create'));
      const revoked = { ...key, state: 'revoked' as const };
      expect(await store.update(key.id, (current) => ({ key: { ...current, state: 'revoked' }, audit: auditOf(key, 'revoke', key.createdAt + 5) }))).toEqual(revoked);
      expect(await store.get(key.id)).toEqual(revoked);
      expect(await store.update(key.id, () => undefined)).toEqual(revoked);
      expect((await store.auditLog({ keyId: key.id, limit: 10 })).map((entry) => entry.action)).toEqual(['revoke', 'create']);
    });

    it('concurrent updates of one key lose none', async () => {
      const { store } = await setup();
      const key = sampleStoredKey({ limits: { rpm: 0, tpm: 0, maxConcurrency: 0 } });
      await store.insert(key, auditOf(key, 'create'));
      const bump = () => store.update(key.id, (current) => ({ key: { ...current, limits: { ...current.limits, rpm: current.limits.rpm + 1 } }, audit: auditOf(current, 'update') }));
      await Promise.all(Array.from({ length: 8 }, bump));
      expect((await store.get(key.id))?.limits.rpm).toBe(8);
    });

    it('lists newest first, by tenant and by state, up to the limit', async () => {
      const { store } = await setup();
      const a1 = sampleStoredKey({ tenant: 'a' });
      const b1 = sampleStoredKey({ tenant: 'b', state: 'revoked' });
      const a2 = sampleStoredKey({ tenant: 'a', state: 'rotating' });
      for (const key of [a1, b1, a2]) await store.insert(key, auditOf(key, 'create'));
      const ids = (keys: StoredKey[]) => keys.map((key) => key.id);
      expect(ids(await store.list({ limit: 10 }))).toEqual([a2.id, b1.id, a1.id]);
      expect(ids(await store.list({ tenant: 'a', limit: 10 }))).toEqual([a2.id, a1.id]);
      expect(ids(await store.list({ state: 'revoked', limit: 10 }))).toEqual([b1.id]);
      expect(ids(await store.list({ limit: 2 }))).toEqual([a2.id, b1.id]);
    });

    it('keeps the audit log newest first, each row as written', async () => {
      const { store } = await setup();
      const key = sampleStoredKey();
      const other = sampleStoredKey();
      await store.insert(key, auditOf(key, 'create', 1000));
      await store.insert(other, auditOf(other, 'create', 2000));
      await store.update(key.id, (current) => ({ key: current, audit: { at: 3000, actor: 'admin:x', action: 'update', keyId: key.id, changes: { limits: { rpm: 5 }, expiresAt: null } } }));
      expect(await store.auditLog({ limit: 10 })).toEqual([
        { at: 3000, actor: 'admin:x', action: 'update', keyId: key.id, changes: { limits: { rpm: 5 }, expiresAt: null } },
        auditOf(other, 'create', 2000),
        auditOf(key, 'create', 1000),
      ]);
      expect(await store.auditLog({ limit: 1 })).toHaveLength(1);
      expect((await store.auditLog({ keyId: other.id, limit: 10 })).map((entry) => entry.keyId)).toEqual([other.id]);
    });

    it('writes a last use apart: no audit row, no new version', async () => {
      const { store } = await setup();
      const key = sampleStoredKey();
      await store.insert(key, auditOf(key, 'create'));
      const version = await store.version();
      await store.touch(key.id, 1_750_000_000_000);
      expect((await store.get(key.id))?.lastUsedAt).toBe(1_750_000_000_000);
      expect(await store.version()).toBe(version);
      expect(await store.auditLog({ limit: 10 })).toHaveLength(1);
    });

    it('moves its version on every insert and update', async () => {
      const { store } = await setup();
      const v0 = await store.version();
      const key = sampleStoredKey();
      await store.insert(key, auditOf(key, 'create'));
      const v1 = await store.version();
      await store.update(key.id, (current) => ({ key: { ...current, name: 'renamed' }, audit: auditOf(current, 'update') }));
      const v2 = await store.version();
      expect(v1).not.toBe(v0);
      expect(v2).not.toBe(v1);
    });

    it('a second store on the same place hears a change the first made, until it unsubscribes', async () => {
      const { place, store } = await setup();
      const reader = track(await place.open());
      const heard = deferred<void>();
      let calls = 0;
      const unsubscribe = reader.onChange(() => {
        calls += 1;
        heard.resolve();
      });
      try {
        const key = sampleStoredKey();
        await store.insert(key, auditOf(key, 'create'));
        await heard.promise;
        expect(calls).toBeGreaterThanOrEqual(1);
      } finally {
        unsubscribe();
      }
      // After unsubscribing, a change reaches a listener still subscribed and never the removed one.
      const after = deferred<void>();
      const unsubscribeAfter = reader.onChange(() => after.resolve());
      const seen = calls;
      const next = sampleStoredKey();
      await store.insert(next, auditOf(next, 'create'));
      await after.promise;
      unsubscribeAfter();
      expect(calls).toBe(seen);
    });
  });
}
