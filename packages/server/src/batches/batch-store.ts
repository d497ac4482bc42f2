/**
 * The store of the server's batches and files, as `PGW_BATCH__ENGINE` names it, opened by @pgw/batch's
 * `openBatchStore` as `pgw batch` opens it: the embedded SQLite file under `PGW_BATCH__DIR`, or the
 * fleet engine of @pgw/batch-bullmq (an optional package, loaded only when named).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BATCH_FILE_NAME, openBatchStore, type BatchSettings } from '@pgw/batch';
import type { BatchStoreSource } from './batches.js';

export function batchStoreSource(settings: BatchSettings): BatchStoreSource {
  return {
    open: () => openBatchStore(settings),
    // The shared PostgreSQL may hold this fleet's unfinished batches: look.
    mayHoldJobs: () => settings.engine === 'bullmq' || existsSync(join(settings.dir, BATCH_FILE_NAME)),
  };
}
