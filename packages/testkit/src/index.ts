export * from './fake-clock.js';
export * from './limiter-contract.js';
export * from './gate-contract.js';
export * from './cache-contract.js';
export * from './recorder-contract.js';
