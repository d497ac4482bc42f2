// Where the behaviours live: pg-recorder.ts queues rows and writes each batch in one statement
// (schema.ts is the table and its migration, transaction.ts one transaction on a client of its own,
// names.ts the checked and quoted schema and table names); report-queries.ts answers `pgw report`.
export { PgRecorder, type PgRecorderOptions } from './pg-recorder.js';
export { summarize, type PgSummarySource } from './report-queries.js';
