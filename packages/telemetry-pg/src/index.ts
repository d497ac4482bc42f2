export { PgRecorder, type PgRecorderOptions } from './pg-recorder.js';
export { summarize, type PgSummarySource } from './report-queries.js';
