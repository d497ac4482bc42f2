// Where the behaviours live: sqlite-recorder.ts queues rows and hands batches to its writer thread
// (writer-thread.ts ↔ sqlite-worker.ts, their messages in writer-protocol.ts); sqlite-writer.ts
// opens, rotates (rotation.ts) and bounds the file, sqlite-driver.ts says whether the driver or the
// path failed to open; sqlite-store.ts writes a batch of rows (schema.ts is the table);
// report-queries.ts answers `pgw report`.
export { SqliteRecorder, type SqliteRecorderOptions } from './sqlite-recorder.js';
export { rotatedFiles } from './rotation.js';
export { summarize, type SqliteSummarySource } from './report-queries.js';
