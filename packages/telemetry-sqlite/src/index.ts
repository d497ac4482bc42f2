// Where the behaviours live: sqlite-recorder.ts queues rows and hands batches to its writer thread
// (writer-thread.ts ↔ sqlite-worker.ts); sqlite-writer.ts opens, rotates and bounds the file;
// sqlite-store.ts writes a batch of rows (schema.ts is the table).
export { SqliteRecorder, type SqliteRecorderOptions } from './sqlite-recorder.js';
export { rotatedFiles } from './rotation.js';
export { summarize, type SqliteSummarySource } from './report-queries.js';
