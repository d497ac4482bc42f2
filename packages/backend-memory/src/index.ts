export { InMemoryLimiter, LIMIT_WINDOW_MS, CONCURRENCY_POLL_MS } from './limiter.js';
export type { InMemoryLimiterOptions } from './limiter.js';
export { InMemoryGate } from './gate.js';
export type { InMemoryGateOptions } from './gate.js';
export { InMemoryCache } from './cache.js';
export type { InMemoryCacheOptions } from './cache.js';
export { InMemoryGovernor, type InMemoryGovernorOptions } from './governor.js';
