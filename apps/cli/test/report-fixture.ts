/** A Report built the way `pgw report` builds it: the store's own summarize over the fixture file. */
import { summarize } from '@pgw/telemetry-sqlite';
import type { Report } from '../src/report/report-model.js';
import { FIXTURE_START, HOSTILE_TENANT, telemetryFile } from './telemetry-fixture.js';

export async function fixtureReport(): Promise<Report> {
  const path = await telemetryFile();
  const bucketMs = 5 * 60_000;
  const summary = await summarize({ path }, { bucketMs });
  return { summary, sourceLabel: `sqlite ${path}`, bucketMs, generatedAt: FIXTURE_START + 3 * 3_600_000, budgets: [], batchJobs: BATCH_JOBS };
}

/** Two jobs of the batch store, one for a tenant whose id is hostile text. */
export const BATCH_JOBS: Report['batchJobs'] = [
  { job: 'batch_nightly', tenantId: HOSTILE_TENANT, status: 'paused (budget)', total: 2000, done: 1200, failed: 3, costUsd: 4.5, budgetUsd: 5 },
  { job: 'batch_evals', tenantId: '', status: 'completed', total: 10, done: 10, failed: 0, costUsd: 0.0125 },
];
