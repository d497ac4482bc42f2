/**
 * The door's read of the key store: an in-process cache of the records each lookup names (misses
 * included, so a stream of made-up keys reads the store once per lookup), dropped whole on every
 * change the store signals (at once on SQLite; by LISTEN/NOTIFY, with the store's version check as
 * backstop, on PostgreSQL). A read that began before a change never fills the cache after it. Expiry
 * and the rotation's grace are judged per request on the record, so they need no signal. A key's
 * last use is written at most once a minute per server, never awaited by the request.
 */
import type { Clock, KeyStore, MaybePromise, StoredKey } from '@pgw/core';
import type { KeyPolicy } from '../door/api-keys.js';
import { boundsOf } from './key-bounds.js';
import { lookupIfStored, proves } from './key-material.js';

/** Beyond this many lookups the cache starts over: bounded whatever keys are presented. */
const MAX_CACHED_LOOKUPS = 10_000;
export const LAST_USED_EVERY_MS = 60_000;

/** The key store could not be read (its database is down): the request is refused, not let in. */
export class KeyStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The key store is unavailable; retry shortly', { cause });
    this.name = 'KeyStoreUnavailableError';
  }
}

export class StoredKeys {
  readonly #open: () => Promise<KeyStore>;
  readonly #now: Clock;
  readonly #fault: (error: unknown) => void;
  #store: Promise<KeyStore> | undefined;
  #unsubscribe: (() => void) | undefined;
  readonly #cache = new Map<string, readonly StoredKey[]>();
  #generation = 0;
  readonly #touched = new Map<string, number>();

  constructor(open: () => Promise<KeyStore>, now: Clock, fault: (error: unknown) => void) {
    this.#open = open;
    this.#now = now;
    this.#fault = fault;
  }

  /** The store, opened on first use (a server that never sees a stored key opens no file); a failed open is tried again next time. */
  store(): Promise<KeyStore> {
    this.#store ??= this.#open().then(
      (store) => {
        this.#unsubscribe = store.onChange(() => this.forget());
        return store;
      },
      (error: unknown) => {
        this.#store = undefined;
        throw new KeyStoreUnavailableError(error);
      },
    );
    return this.#store;
  }

  /** Drops every cached record (a change was signalled, or this server wrote one). */
  forget(): void {
    this.#generation += 1;
    this.#cache.clear();
  }

  /** The policy of a presented key when it is a live stored key; undefined otherwise. Synchronous when cached. */
  policyOf(key: string): MaybePromise<KeyPolicy | undefined> {
    const lookup = lookupIfStored(key);
    if (lookup === undefined) return undefined;
    const cached = this.#cache.get(lookup);
    if (cached !== undefined) return this.#admitted(key, cached);
    return this.#read(lookup).then((records) => this.#admitted(key, records));
  }

  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    this.#unsubscribe?.();
    if (store !== undefined) await store.then((opened) => opened.close(), () => undefined);
  }

  async #read(lookup: string): Promise<readonly StoredKey[]> {
    const generation = this.#generation;
    let records: StoredKey[];
    try {
      records = await (await this.store()).findByLookup(lookup);
    } catch (error) {
      throw error instanceof KeyStoreUnavailableError ? error : new KeyStoreUnavailableError(error);
    }
    if (generation === this.#generation) {
      if (this.#cache.size >= MAX_CACHED_LOOKUPS) this.#cache.clear();
      this.#cache.set(lookup, records);
    }
    return records;
  }

  #admitted(key: string, records: readonly StoredKey[]): KeyPolicy | undefined {
    const now = this.#now();
    const record = records.find((candidate) => isLive(candidate, now) && (proves(key, candidate.secret) || (candidate.previous !== null && candidate.previous.validUntil > now && proves(key, candidate.previous))));
    if (record === undefined) return undefined;
    this.#noteUse(record.id, now);
    return {
      tenantId: record.tenant,
      priority: record.priority,
      ...(record.models !== null && { models: new Set(record.models) }),
      ...(record.mcp !== null && { mcp: new Set(record.mcp) }),
      key: boundsOf(record),
    };
  }

  #noteUse(id: string, now: number): void {
    if (now - (this.#touched.get(id) ?? -Infinity) < LAST_USED_EVERY_MS) return;
    this.#touched.set(id, now);
    void this.store()
      .then((store) => store.touch(id, now))
      .catch(this.#fault);
  }
}

/** Not revoked and not expired (the rotation's grace is judged on the previous secret alone). */
export const isLive = (key: StoredKey, now: number): boolean => key.state !== 'revoked' && (key.expiresAt === null || key.expiresAt > now);
