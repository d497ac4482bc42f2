// Where the behaviours live: input.ts checks a job's lines; the store port is @pgw/core's BatchEngine,
// kept by sqlite-engine.ts (embedded; the fleet's is @pgw/batch-bullmq), chosen and opened from the env by
// batch-store.ts; item-call.ts makes one item's governed call, its body and answer translated by
// @pgw/wire as its route's are, and item-failure.ts records a failed one; run-batch.ts drives a job,
// named by job-id.ts; output.ts writes its files; cost-estimate.ts prices it before the start.
export { parseBatchInput, BatchInputError, BATCH_URLS, CHAT_URL, EMBEDDINGS_URL, RESPONSES_URL, MESSAGES_URL, OCR_URL, isChatUrl } from './input.js';
export type { BatchUrl, ChatUrl, InputItem, BatchInputErrorOptions, ParseInputOptions } from './input.js';
export { SqliteBatchEngine, BatchJobBusyError, BATCH_FILE_NAME } from './sqlite-engine.js';
export type { SqliteEngineOptions } from './sqlite-engine.js';
export { lineCall } from './item-call.js';
export type { BatchClients } from './item-call.js';
export { runBatch, resumeBatch, checkBatchInput, BatchJobNotFoundError } from './run-batch.js';
export type { RunBatchOptions } from './run-batch.js';
export { writeBatchOutput, outputLine, errorFileOf } from './output.js';
export type { OutputFiles } from './output.js';
export { readBatchSettings, openBatchStore, BATCH_ENGINES, DEFAULT_BATCH_DIR } from './batch-store.js';
export type { BatchSettings, BatchStore } from './batch-store.js';
export { jobIdOf, assertJobId, JOB_ID_PATTERN } from './job-id.js';
export { estimateJob } from './cost-estimate.js';
export type { JobEstimate } from './cost-estimate.js';
