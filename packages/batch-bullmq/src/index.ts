// The fleet engine, a package of its own so that an application on the embedded engine installs
// neither BullMQ nor ioredis nor the PostgreSQL driver. Where the behaviours live: queues.ts (BullMQ,
// the Cluster connection, the `{pgw-batch}` hash tag), books.ts (jobs, items, results, the job budget
// in PostgreSQL; pg-tables.ts names and creates the tables), file-store.ts (the server's batch files in
// PostgreSQL), bullmq-engine.ts (the engine port over them).
export { BullmqBatchEngine } from './bullmq-engine.js';
export type { BullmqEngineOptions } from './bullmq-engine.js';
export { BULLMQ_PREFIX } from './queues.js';
export { PgBatchFileStore } from './file-store.js';
export type { PgFileStoreOptions } from './file-store.js';
