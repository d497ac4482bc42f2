import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedisConnection } from '../src/index.js';

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** A scope no other test file (or earlier run) uses, so files run in parallel on one Redis. */
export function uniqueScope(label: string): string {
  return `test-${label}-${randomBytes(6).toString('hex')}`;
}

/** Connections opened by a test file; `closeAll` in afterAll quits them. */
export function connectionPool() {
  const opened: Redis[] = [];
  return {
    open(url = REDIS_URL): Redis {
      const redis = createRedisConnection(url, { connectTimeoutMs: 2000, commandTimeoutMs: 2000 });
      opened.push(redis);
      return redis;
    },
    async closeAll(): Promise<void> {
      // quit() is graceful but refuses a connection that is down (no offline queue): then disconnect.
      await Promise.all(opened.splice(0).map((redis) => redis.quit().catch(() => redis.disconnect())));
    },
  };
}

/** Every key of a prefix with its PTTL. */
export async function keysWithTtl(redis: Redis, pattern: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    for (const key of keys) found.set(key, await redis.pttl(key));
  } while (cursor !== '0');
  return found;
}
