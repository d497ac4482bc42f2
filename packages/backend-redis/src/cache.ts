import type { RedisClient } from './connection.js';
import { optionalPositiveMs, assertPositiveInteger, assertPositiveMs } from '@pgw/core/internal';
import type { Cache, Clock } from '@pgw/core';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { cachePrefix } from './keys.js';
import { CACHE_GET, CACHE_SET } from './lua/cache.js';
import { clockArg } from './scripts.js';


export interface RedisCacheOptions {
  /** Not owned: the cache never closes it. */
  redis: RedisClient;
  /** Isolates this cache's keys (`pgw:cache:{namespace}:…`). Default `default`. */
  namespace?: string;
  /** Least recently used entries are evicted beyond this many. Default 1000. */
  maxEntries?: number;
  /** Test seam: replaces Redis `TIME` inside the scripts. Production leaves it unset. */
  now?: Clock;
  /** Bound on one cache operation, including waiting for the connection. Default 2000. */
  commandTimeoutMs?: number;
}

/**
 * A bounded LRU cache with per-entry TTL, shared by every worker. Cache failures fail open: errors
 * are thrown as plain Errors (not governance errors) for the cache middleware to turn into a warning.
 */
export class RedisCache implements Cache {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #maxEntries: number;
  readonly #now: Clock | undefined;
  readonly #timeoutMs: number;

  constructor(options: RedisCacheOptions) {
    this.#redis = options.redis;
    this.#prefix = cachePrefix(options.namespace ?? 'default');
    this.#maxEntries = assertPositiveInteger(options.maxEntries ?? 1000, 'maxEntries');
    this.#now = options.now;
    this.#timeoutMs = optionalPositiveMs(options.commandTimeoutMs, 'commandTimeoutMs', DEFAULT_TIMEOUT_MS);
  }

  async get(key: string): Promise<string | undefined> {
    const keys = this.#keysOf(key);
    const reply = await this.#fallible('get', () => CACHE_GET.run(this.#redis, { keys, args: { now: clockArg(this.#now), key } }, this.#timeoutMs));
    return reply.kind === 'hit' ? reply.value : undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const keys = this.#keysOf(key);
    if (typeof value !== 'string') throw new TypeError(`value must be a string, got ${typeof value}`);
    assertPositiveMs(ttlMs, 'ttlMs');
    const args = { now: clockArg(this.#now), key, value, ttlMs, maxEntries: this.#maxEntries, entryKeyPrefix: `${this.#prefix}v:` };
    await this.#fallible('set', () => CACHE_SET.run(this.#redis, { keys, args }, this.#timeoutMs));
  }

  #keysOf(key: string): { entry: string; lru: string; counter: string } {
    if (typeof key !== 'string') throw new TypeError(`key must be a string, got ${typeof key}`);
    return { entry: `${this.#prefix}v:${key}`, lru: `${this.#prefix}lru`, counter: `${this.#prefix}seq` };
  }

  async #fallible<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new Error(`redis cache ${operation} failed: ${reason}`, { cause });
    }
  }
}
