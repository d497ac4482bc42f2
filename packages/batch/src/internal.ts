// `@pgw/batch/internal`: the engine port as the engines of our other packages (@pgw/batch-bullmq)
// implement it, without the package's main entry, whose engine chooser loads them (so an engine's
// imports never lead back to itself). It moves with @pgw/batch's exact version; applications never
// import it.
export { resultOf } from './engine.js';
export type { BatchEngine, BatchFileStore, ItemResponse, ItemResult, JobProgress, JobSpec, JobStatus, PauseReason, ResultRow, StoredFile } from './engine.js';
export type { BatchItem } from './input.js';
