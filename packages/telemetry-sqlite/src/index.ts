export { SqliteRecorder, type SqliteRecorderOptions } from './sqlite-recorder.js';
export { rotatedFiles } from './rotation.js';
export { summarize, type SqliteSummarySource } from './report-queries.js';
