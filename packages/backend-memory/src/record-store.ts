import type { Clock, RecordStore } from '@pgw/core';
import { assertPositiveInteger, assertPositiveMs } from '@pgw/core/internal';

export interface InMemoryRecordStoreOptions {
  /** The oldest records are dropped beyond this many, so a flood of writes cannot exhaust the heap. Default 10,000. */
  maxRecords?: number;
  now?: Clock;
}

/**
 * Records with a TTL in one process. A Map keeps insertion order, so its first key is the oldest
 * write; expired records are dropped when next read, and the oldest ones when the bound is passed.
 */
export class InMemoryRecordStore implements RecordStore {
  readonly #maxRecords: number;
  readonly #now: Clock;
  readonly #records = new Map<string, { value: string; expiresAt: number }>();

  constructor(options: InMemoryRecordStoreOptions = {}) {
    this.#maxRecords = assertPositiveInteger(options.maxRecords ?? 10_000, 'maxRecords');
    this.#now = options.now ?? Date.now;
  }

  async get(key: string): Promise<string | undefined> {
    const record = this.#records.get(key);
    if (record === undefined) return undefined;
    if (this.#now() < record.expiresAt) return record.value;
    this.#records.delete(key);
    return undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (typeof value !== 'string') throw new TypeError(`value must be a string, got ${typeof value}`);
    assertPositiveMs(ttlMs, 'ttlMs');
    this.#records.delete(key);
    this.#records.set(key, { value, expiresAt: this.#now() + ttlMs });
    for (const oldest of this.#records.keys()) {
      if (this.#records.size <= this.#maxRecords) break;
      this.#records.delete(oldest);
    }
  }

  async delete(key: string): Promise<boolean> {
    const live = (await this.get(key)) !== undefined;
    this.#records.delete(key);
    return live;
  }
}
