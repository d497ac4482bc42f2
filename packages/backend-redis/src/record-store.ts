import type { Clock, RecordStore } from '@pgw/core';
import { assertPositiveMs, optionalPositiveMs } from '@pgw/core/internal';
import { DEFAULT_TIMEOUT_MS, type RedisClient } from './connection.js';
import { recordPrefix } from './keys.js';
import { RECORD_DELETE, RECORD_GET, RECORD_SET } from './lua/records.js';
import { clockArg } from './scripts.js';


export interface RedisRecordStoreOptions {
  /** Not owned: the store never closes it. */
  redis: RedisClient;
  /** Isolates this store's keys (`pgw:record:{namespace}:…`). */
  namespace: string;
  /** Test seam: replaces Redis `TIME` inside the scripts. Production leaves it unset. */
  now?: Clock;
  /** Bound on one operation, including waiting for the connection. Default 2000. */
  commandTimeoutMs?: number;
}

/**
 * Records with a TTL shared by every process on one Redis. Each record is its own key (no hash tag
 * joins them), so on a Cluster they spread over the slots. Bounded by Redis's own memory policy.
 */
export class RedisRecordStore implements RecordStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;

  constructor(options: RedisRecordStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = recordPrefix(options.namespace);
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
  }

  async get(key: string): Promise<string | undefined> {
    const reply = await RECORD_GET.run(this.#redis, { keys: this.#keysOf(key), args: { now: clockArg(this.#now) } }, this.#timeoutMs);
    return reply.kind === 'found' ? reply.value : undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (typeof value !== 'string') throw new TypeError(`value must be a string, got ${typeof value}`);
    assertPositiveMs(ttlMs, 'ttlMs');
    await RECORD_SET.run(this.#redis, { keys: this.#keysOf(key), args: { now: clockArg(this.#now), value, ttlMs } }, this.#timeoutMs);
  }

  async delete(key: string): Promise<boolean> {
    const { live } = await RECORD_DELETE.run(this.#redis, { keys: this.#keysOf(key), args: { now: clockArg(this.#now) } }, this.#timeoutMs);
    return live === 1;
  }

  #keysOf(key: string): { record: string } {
    if (typeof key !== 'string') throw new TypeError(`key must be a string, got ${typeof key}`);
    return { record: `${this.#prefix}${key}` };
  }
}
