/** A Report built the way `pgw report` builds it: the store's own summarize over the fixture file. */
import { summarize } from '@pgw/telemetry-sqlite';
import type { Report } from '../src/report/report-model.js';
import { FIXTURE_START, telemetryFile } from './telemetry-fixture.js';

export async function fixtureReport(): Promise<Report> {
  const path = await telemetryFile();
  const bucketMs = 5 * 60_000;
  const summary = await summarize({ path }, { bucketMs });
  return { summary, sourceLabel: `sqlite ${path}`, bucketMs, generatedAt: FIXTURE_START + 3 * 3_600_000, budgets: [] };
}
