export { InMemoryLimiter, LIMIT_WINDOW_MS, CONCURRENCY_POLL_MS } from './limiter.js';
export type { InMemoryLimiterOptions } from './limiter.js';
export { InMemoryBreaker } from './breaker.js';
export type { InMemoryBreakerOptions } from './breaker.js';
export { InMemoryCache } from './cache.js';
export type { InMemoryCacheOptions } from './cache.js';
export { InMemoryGovernor, type InMemoryGovernorOptions } from './governor.js';
