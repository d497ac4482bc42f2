// The fleet engine, apart from the package's main entry so the embedded engine's users load neither
// BullMQ nor the PostgreSQL driver.
export { BullmqBatchEngine, BULLMQ_PREFIX } from './bullmq-engine.js';
export type { BullmqEngineOptions } from './bullmq-engine.js';
