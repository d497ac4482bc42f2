// Where the behaviours live: protocol.ts declares every script's fields and replies, coalesce.ts gathers a
// turn's admissions and ends into one call; governor.ts runs one attempt's two scripts (lua/governor.ts: the
// breaker's admission and trip in lua/breaker.ts, the six gates in lua/limiter.ts, a spend budget's
// reservation in lua/budget.ts); holdings.ts re-books a store that forgot, replay.ts replays lost
// write-backs; connection.ts makes the standalone, Cluster and Sentinel connections; cache.ts and
// lua/cache.ts are the response cache; record-store.ts and lua/records.ts keep records for a TTL.
export {
  createRedisCluster,
  createRedisConnection,
  createRedisSentinel,
  type RedisClient,
  type RedisConnectionOptions,
  type RedisSentinelOptions,
} from './connection.js';
export { RedisLimiter, LIMIT_WINDOW_MS, CONCURRENCY_POLL_MS, type RedisLimiterOptions } from './limiter.js';
export { RedisBreaker, type RedisBreakerOptions } from './breaker.js';
export { RedisCache, type RedisCacheOptions } from './cache.js';
export { RedisRecordStore, type RedisRecordStoreOptions } from './record-store.js';
export { RedisGovernor, type RedisGovernorOptions } from './governor.js';
