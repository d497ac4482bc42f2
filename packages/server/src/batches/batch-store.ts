/**
 * The store of the server's batches and files, as `PGW_BATCH__ENGINE` names it: the embedded SQLite
 * file under `PGW_BATCH__DIR`, or the fleet engine (queue on `REDIS_URL`, batches and files in
 * PostgreSQL), loaded by dynamic import only when named so a server on sqlite never loads BullMQ or pg.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BATCH_FILE_NAME, SqliteBatchEngine } from '@pgw/batch';
import type { BatchStoreSource } from './batches.js';
import type { BatchEngineSettings } from '../operations/server-settings.js';

export function batchStoreSource(engine: BatchEngineSettings, dir: string): BatchStoreSource {
  if (engine.kind === 'sqlite') {
    return { open: async () => new SqliteBatchEngine({ dir }), mayHoldJobs: () => existsSync(join(dir, BATCH_FILE_NAME)) };
  }
  return {
    open: async () => {
      const { BullmqBatchEngine } = await import('@pgw/batch/bullmq');
      return new BullmqBatchEngine({ redisUrl: engine.redisUrl, dsn: engine.dsn, redisMode: engine.redisMode });
    },
    // The shared PostgreSQL may hold this fleet's unfinished batches: look.
    mayHoldJobs: () => true,
  };
}
