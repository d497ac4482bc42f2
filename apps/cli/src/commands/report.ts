/** `pgw report`: the telemetry summary as a terminal table, JSON, and optionally a self-contained HTML page. */
import { writeFile } from 'node:fs/promises';
import { DEFAULT_BATCH_DIR } from '@pgw/batch';
import type { TelemetrySummary } from '@pgw/core';
import { effectiveEnv } from '../effective-env.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { bucketWidthFor } from '../report/bucket-width.js';
import { displayUsd } from '../report/format.js';
import { readBatchJobs } from '../report/batch-jobs.js';
import { budgetSpends, budgetsInEnv } from '../report/budgets.js';
import { renderHtmlPage } from '../report/html-page.js';
import type { Report } from '../report/report-model.js';
import { describeSummarySource, readSummary, resolveSummarySource } from '../report/summary-source.js';
import type { StoreFlags, SummarySource } from '../report/summary-source.js';
import { renderSummaryTable } from '../report/summary-table.js';
import { UsageError } from '../usage-error.js';

/** Hourly buckets for the query that learns the data's time span. */
const FIRST_PASS_BUCKET_MS = 3_600_000;

export interface ReportFlags extends StoreFlags {
  since?: number;
  until?: number;
  bucket?: number;
  html?: string;
  json?: boolean;
  envFile?: string;
}

export async function runReport(flags: ReportFlags): Promise<ExitCode> {
  const { since, until } = flags;
  if (since !== undefined && until !== undefined && since >= until) {
    throw new UsageError('--since', 'must be earlier than --until');
  }
  const env = effectiveEnv(flags.envFile);
  const source = resolveSummarySource(flags, env);
  const generatedAt = Date.now();
  const { summary, bucketMs } = await summaryWithReadableBuckets(source, flags, generatedAt);
  const budgets = await budgetSpends(budgetsInEnv(env), (range) => readSummary(source, range), generatedAt);
  const batchJobs = await readBatchJobs(env.get('PGW_BATCH__DIR') ?? DEFAULT_BATCH_DIR);
  const report: Report = {
    summary,
    budgets,
    batchJobs,
    sourceLabel: describeSummarySource(source),
    bucketMs,
    generatedAt,
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
  };

  if (flags.json) process.stdout.write(`${JSON.stringify(reportJson(report), null, 2)}\n`);
  else process.stdout.write(renderSummaryTable(report));
  if (flags.html !== undefined) {
    await writeFile(flags.html, renderHtmlPage(report), 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError('--html', `cannot write ${flags.html} (${error.code ?? 'error'})`);
    });
    process.stderr.write(`pgw: wrote ${flags.html}\n`);
  }
  return EXIT.ok;
}

/**
 * With no `--bucket`, the width follows the time span: known up front from `--since`, else learnt
 * from a first query with hourly buckets. A longer span is read again with its coarser width; a
 * shorter one is refined until the width fits (each pass measures the span more finely: an hour,
 * then a minute, then a second), so a run of seconds is not drawn as one bar.
 */
async function summaryWithReadableBuckets(source: SummarySource, flags: ReportFlags, now: number) {
  const range = {
    ...(flags.since === undefined ? {} : { since: flags.since }),
    ...(flags.until === undefined ? {} : { until: flags.until }),
  };
  const read = async (bucketMs: number): Promise<{ summary: TelemetrySummary; bucketMs: number }> => ({
    summary: await readSummary(source, { ...range, bucketMs }),
    bucketMs,
  });
  if (flags.bucket !== undefined) return read(flags.bucket);
  if (flags.since !== undefined) return read(bucketWidthFor((flags.until ?? now) - flags.since));
  let current = await read(FIRST_PASS_BUCKET_MS);
  for (;;) {
    const buckets = current.summary.callsOverTime;
    if (buckets.length === 0) return current;
    const width = bucketWidthFor(buckets.at(-1)!.bucket + current.bucketMs - buckets[0]!.bucket);
    if (width === current.bucketMs) return current;
    if (width > current.bucketMs) return read(width);
    current = await read(width);
  }
}

function reportJson(report: Report) {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    store: report.sourceLabel,
    since: iso(report.since),
    until: iso(report.until),
    bucketMs: report.bucketMs,
    generatedAt: iso(report.generatedAt),
    summary: report.summary,
    batchJobs: report.batchJobs,
    budgets: report.budgets.map(({ scope, policy, since, resetAt, spentUsd, tenants }) => ({
      scope,
      ...policy,
      since: iso(since),
      resetAt: iso(resetAt),
      spentUsd: displayUsd(spentUsd),
      ...(tenants && { tenants: tenants.map((tenant) => ({ tenantId: tenant.tenantId, spentUsd: displayUsd(tenant.spentUsd) })) }),
    })),
  };
}
