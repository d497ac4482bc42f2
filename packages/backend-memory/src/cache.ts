import type { Cache, Clock } from '@pgw/core';
import { assertPositiveInteger, assertPositiveMs } from '@pgw/core/internal';

export interface InMemoryCacheOptions {
  /** Least recently used entries are evicted beyond this many. Default 1000. */
  maxEntries?: number;
  now?: Clock;
}

interface CacheEntry {
  readonly value: string;
  readonly expiresAt: number;
}

/**
 * A bounded LRU cache with per-entry TTL. A Map keeps insertion order, so re-inserting on every hit
 * makes its first key the least recently used; expired entries are dropped when next looked up.
 */
export class InMemoryCache implements Cache {
  private readonly maxEntries: number;
  private readonly now: Clock;
  private readonly entries = new Map<string, CacheEntry>();

  constructor(options: InMemoryCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 1000;
    assertPositiveInteger(this.maxEntries, 'maxEntries');
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (this.now() >= entry.expiresAt) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (typeof value !== 'string') throw new TypeError(`value must be a string, got ${typeof value}`);
    assertPositiveMs(ttlMs, 'ttlMs');
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
