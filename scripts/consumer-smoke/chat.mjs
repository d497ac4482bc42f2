// Plain-node ESM consumer: one governed chat call against a loopback upstream, configured by env
// keys only. The scope comes from SMOKE_SCOPE; backends from the process env (PGW_LIMITER_BACKEND…).
// With the Redis limiter it also counts the scope's keys in Redis (proof the backend switched) and
// deletes them. With SQLite telemetry it reads back how many calls the file holds. Prints one JSON line.
import { GatewayClient } from '@pgw/client';
import { ANSWER, startUpstream } from './loopback-upstream.mjs';

const scope = process.env.SMOKE_SCOPE ?? 'LLM';
const upstream = await startUpstream();
try {
  const client = await GatewayClient.fromEnv(scope, {
    env: {
      ...process.env,
      [`${scope}__SOURCE__LOCAL__BASE_URL`]: upstream.baseUrl,
      [`${scope}__SOURCE__LOCAL__MODEL`]: 'smoke-model',
      [`${scope}__SOURCE__LOCAL__RPM`]: '1000',
    },
  });
  let answer;
  try {
    answer = await client.chat([{ role: 'user', content: 'Say hello.' }]);
  } finally {
    await client.close();
  }
  if (answer.content !== ANSWER || answer.source !== 'local') throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
  const redisKeys = process.env.PGW_LIMITER_BACKEND === 'redis' ? await takeScopeKeys(scope.toUpperCase()) : undefined;
  const telemetryCalls = process.env.PGW_TELEMETRY_BACKEND === 'sqlite' ? await telemetryCallsIn(process.env.PGW_SQLITE_PATH) : undefined;
  console.log(JSON.stringify({ content: answer.content, source: answer.source, attempts: answer.callStats.attempts, redisKeys, telemetryCalls }));
} finally {
  await upstream.close();
}

/** Counts and deletes this scope's keys; ioredis is importable only because @pgw/backend-redis brought it. */
async function takeScopeKeys(scopeName) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    const keys = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `pgw:{${scopeName}}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    if (keys.length > 0) await redis.del(...keys);
    return keys.length;
  } finally {
    redis.disconnect();
  }
}

async function telemetryCallsIn(path) {
  const { summarize } = await import('@pgw/telemetry-sqlite');
  return (await summarize({ path })).calls;
}
