import type { Clock, RecordStore } from '@pgw/core';
import { assertPositiveMs, optionalPositiveMs } from '@pgw/core/internal';
import { DEFAULT_TIMEOUT_MS, type RedisClient } from './connection.js';
import { recordPrefix } from './keys.js';
import { RECORD_DELETE_LUA, RECORD_GET_LUA, RECORD_SET_LUA } from './lua/records.js';
import { clockArg, luaScript, runScript, type LuaScript } from './scripts.js';

const GET = luaScript('record_get', RECORD_GET_LUA, 1);
const SET = luaScript('record_set', RECORD_SET_LUA, 1);
const DELETE = luaScript('record_delete', RECORD_DELETE_LUA, 1);

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
    const reply = await this.#run(GET, key, []);
    if (reply === null) return undefined;
    if (typeof reply !== 'string') throw new Error(`redis record get: unexpected reply ${JSON.stringify(reply)}`);
    return reply;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (typeof value !== 'string') throw new TypeError(`value must be a string, got ${typeof value}`);
    assertPositiveMs(ttlMs, 'ttlMs');
    await this.#run(SET, key, [value, ttlMs]);
  }

  async delete(key: string): Promise<boolean> {
    return (await this.#run(DELETE, key, [])) === 1;
  }

  #run(script: LuaScript, key: string, args: readonly (string | number)[]): Promise<unknown> {
    if (typeof key !== 'string') throw new TypeError(`key must be a string, got ${typeof key}`);
    return runScript(this.#redis, script, [`${this.#prefix}${key}`], [clockArg(this.#now), ...args], this.#timeoutMs);
  }
}
