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
export { RedisGovernor, type RedisGovernorOptions } from './governor.js';
