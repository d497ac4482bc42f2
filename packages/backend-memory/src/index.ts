// Where the behaviours live: governor.ts admits and finishes one attempt (the breaker in breaker.ts
// trips and leases its probe, the six gates are limiter.ts over sliding-window.ts, a spend budget's
// reservation is budget-book.ts; the breaker's and the gates' windows count by the second in
// second-buckets.ts); cache.ts is the response cache; record-store.ts keeps records for a TTL.
export { InMemoryLimiter, LIMIT_WINDOW_MS, CONCURRENCY_POLL_MS } from './limiter.js';
export type { InMemoryLimiterOptions } from './limiter.js';
export { InMemoryBreaker } from './breaker.js';
export type { InMemoryBreakerOptions } from './breaker.js';
export { InMemoryCache } from './cache.js';
export type { InMemoryCacheOptions } from './cache.js';
export { InMemoryRecordStore, type InMemoryRecordStoreOptions } from './record-store.js';
export { InMemoryGovernor, type InMemoryGovernorOptions } from './governor.js';
