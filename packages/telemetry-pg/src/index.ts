// Where the behaviours live: pg-recorder.ts queues rows and writes each batch in one statement
// (schema.ts is the table and its migration); report-queries.ts answers `pgw report`.
export { PgRecorder, type PgRecorderOptions } from './pg-recorder.js';
export { summarize, type PgSummarySource } from './report-queries.js';
