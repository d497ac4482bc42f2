/** The per-job rows of a report: the batch jobs of the engine's store under `PGW_BATCH__DIR`, newest first. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatCount, formatUsd } from './format.js';

export interface BatchJobRow {
  job: string;
  tenantId: string;
  status: string;
  total: number;
  done: number;
  failed: number;
  costUsd: number;
  budgetUsd?: number;
}

export const BATCH_JOB_COLUMNS = ['job', 'tenant', 'status', 'items', 'done', 'failed', 'cost', 'budget'];
/** Jobs shown at most: the newest. */
export const MAX_REPORTED_JOBS = 100;

/** The store's jobs; none when no batch file exists there (the report never creates one). */
export async function readBatchJobs(dir: string): Promise<BatchJobRow[]> {
  const { BATCH_FILE_NAME, SqliteBatchEngine } = await import('@pgw/batch');
  if (!existsSync(join(dir, BATCH_FILE_NAME))) return [];
  const engine = new SqliteBatchEngine({ dir });
  try {
    const jobs = await engine.jobs(undefined, { limit: MAX_REPORTED_JOBS });
    return jobs.map(({ job, tenantId, status, pauseReason, total, done, failed, costUsd, budgetUsd }) => ({
      job,
      tenantId,
      status: pauseReason ? `${status} (${pauseReason})` : status,
      total,
      done,
      failed,
      costUsd,
      ...(budgetUsd !== undefined && { budgetUsd }),
    }));
  } finally {
    await engine.close();
  }
}

export function batchJobRows(jobs: readonly BatchJobRow[]): string[][] {
  return jobs.map((row) => [
    row.job,
    row.tenantId || '(none)',
    row.status,
    formatCount(row.total),
    formatCount(row.done),
    formatCount(row.failed),
    formatUsd(row.costUsd),
    row.budgetUsd === undefined ? '–' : formatUsd(row.budgetUsd),
  ]);
}
