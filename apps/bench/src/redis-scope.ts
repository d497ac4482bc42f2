/** Redis housekeeping: every benchmark scope is unique, and its keys are deleted afterwards. */
import { once } from 'node:events';
import { Redis } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Deletes every key of a limiter/breaker scope (`pgw:{SCOPE}:…`). */
export async function deleteScopeKeys(redisUrl: string, scope: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `pgw:{${scope}}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/** Resolves once `redis` is ready (the backends' connections queue nothing while connecting). */
export async function redisReady(redis: Redis, redisUrl: string, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      once(redis, 'ready'),
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`redis at ${redisUrl} not ready within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The CPU µs the Redis at `redisUrl` spent in scripts so far (EVALSHA and EVAL, the commands they
 * ran included, from `INFO commandstats`): a round's figure is the difference, read on a Redis
 * nothing else uses meanwhile.
 */
export async function redisScriptUsec(redisUrl: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const info = await redis.info('commandstats');
    return [...info.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  } finally {
    redis.disconnect();
  }
}
