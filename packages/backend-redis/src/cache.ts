import type { RedisClient } from './connection.js';
import { optionalPositiveMs, assertPositiveInteger, assertPositiveMs } from '@pgw/core/internal';
import type { Cache, Clock } from '@pgw/core';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { cachePrefix } from './keys.js';
import { CACHE_GET_LUA, CACHE_SET_LUA } from './lua/cache.js';
import { clockArg, luaScript, runScript, type LuaScript } from './scripts.js';

const GET = luaScript('cache_get', CACHE_GET_LUA, 3);
const SET = luaScript('cache_set', CACHE_SET_LUA, 3);

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
    const reply = await this.#run('get', GET, key, []);
    if (reply === null) return undefined;
    if (typeof reply !== 'string') throw new Error(`redis cache get: unexpected reply ${JSON.stringify(reply)}`);
    return reply;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (typeof value !== 'string') throw new TypeError(`value must be a string, got ${typeof value}`);
    assertPositiveMs(ttlMs, 'ttlMs');
    await this.#run('set', SET, key, [value, ttlMs, this.#maxEntries, `${this.#prefix}v:`]);
  }

  async #run(operation: string, script: LuaScript, key: string, args: readonly (string | number)[]): Promise<unknown> {
    if (typeof key !== 'string') throw new TypeError(`key must be a string, got ${typeof key}`);
    const keys = [`${this.#prefix}v:${key}`, `${this.#prefix}lru`, `${this.#prefix}seq`];
    try {
      return await runScript(this.#redis, script, keys, [clockArg(this.#now), key, ...args], this.#timeoutMs);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new Error(`redis cache ${operation} failed: ${reason}`, { cause });
    }
  }
}
