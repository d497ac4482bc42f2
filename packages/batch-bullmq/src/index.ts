// The fleet engine, a package of its own so that an application on the embedded engine installs
// neither BullMQ nor ioredis nor the PostgreSQL driver.
export { BullmqBatchEngine, BULLMQ_PREFIX } from './bullmq-engine.js';
export type { BullmqEngineOptions } from './bullmq-engine.js';
