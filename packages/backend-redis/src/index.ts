// Where the behaviours live: protocol.ts declares every script's fields and replies, coalesce.ts gathers a
// turn's admissions and ends into one call; governor.ts runs one attempt's two scripts (lua/governor.ts: the
// breaker's admission and trip in lua/breaker.ts, the six gates in lua/limiter.ts, a spend budget's
// reservation in lua/budget.ts, a tenant's books named in lua/tenants.ts); breaker.ts and limiter.ts are
// the breaker and the limiter as parts of their own; holdings.ts (lua/holdings.ts, the store's epoch)
// re-books a store that forgot, replay.ts replays lost write-backs; keys.ts lays out a scope's keys
// (budget-keys.ts a budget's), scripts.ts registers a script and lua/clock.ts is every script's clock;
// fail-closed.ts makes any store failure a refusal; connection.ts makes the standalone, Cluster and
// Sentinel connections, readiness.ts waits until one takes commands; cache.ts and lua/cache.ts are the
// response cache; record-store.ts and lua/records.ts keep records for a TTL.
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
