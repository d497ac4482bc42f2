/** Redis housekeeping: every benchmark scope is unique, and its keys are deleted afterwards. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
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

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** A redis-server of the bench's own (a free port, no persistence), so its figures count nobody else's scripts. */
export async function startPrivateRedisServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  for (let i = 0; i < 100; i++) {
    if ((await probe.ping().catch(() => '')) === 'PONG') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  probe.disconnect();
  return {
    url,
    stop: async () => {
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}
