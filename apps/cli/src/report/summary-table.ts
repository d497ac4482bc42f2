/** The terminal rendering of a report: totals, failed calls and attempts, latency and cost tables. */
import { defuseControls } from '../defuse-controls.js';
import { renderTable } from '../text-table.js';
import { BUDGET_COLUMNS, BUDGET_TEXT_COLUMNS, budgetRows } from './budgets.js';
import { formatCount, formatDuration, formatMs, formatRange, formatUsd } from './format.js';
import { PROMPT_CACHE_HEADERS, promptCacheRows } from './prompt-cache.js';
import { TENANT_COLUMNS, tenantRows } from './tenants.js';
import { BATCH_JOB_COLUMNS, batchJobRows } from './batch-jobs.js';
import {
  attemptErrorRows,
  byValueDesc,
  cancelledAttemptsNote,
  failedAttempts,
  failedCalls,
  OPERATION_COLUMNS,
  operationRows,
  totalCost,
  type Report,
} from './report-model.js';

export function renderSummaryTable(report: Report): string {
  const { summary } = report;
  const range = formatRange(report.since, report.until);
  const cancelled = cancelledAttemptsNote(summary);
  const totals: Array<[string, number]> = [
    ['calls', summary.calls],
    ['attempts', summary.attempts],
    ['retries', summary.retries],
    ['cache hits', summary.cacheHits],
    ['failed calls', failedCalls(summary)],
    ['failed attempts', failedAttempts(summary)],
  ];
  const sections = [
    `pgw report — ${defuseControls(report.sourceLabel)}\nrange: ${range}`,
    renderTable(
      totals.map(([header]) => ({ header, align: 'right' as const })),
      [totals.map(([, n]) => formatCount(n))],
    ),
    section(
      'Calls by operation (an embedding call makes one attempt per batch; retries are re-attempts only)',
      OPERATION_COLUMNS.map((header, i) => (i === 0 ? { header } : { header, align: 'right' as const })),
      operationRows(summary),
    ),
    section(
      'Failures by error type (failed calls)',
      [{ header: 'error_type' }, { header: 'calls', align: 'right' }],
      byValueDesc(summary.failuresByType).map(([type, n]) => [type, formatCount(n)]),
    ),
    section(
      'Failed attempts by error type (retried or not)',
      [{ header: 'error_type' }, { header: 'attempts', align: 'right' }, { header: 'sources' }],
      attemptErrorRows(summary).map(({ type, count, sources }) => [type, formatCount(count), sources]),
    ) + (cancelled === undefined ? '' : `\n  ${cancelled}`),
    section(
      'Latency per source (successful attempts)',
      [{ header: 'source' }, ...['samples', 'p50', 'p95', 'p99'].map((header) => ({ header, align: 'right' as const }))],
      Object.entries(summary.latency)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([source, l]) => [source, formatCount(l.samples), formatMs(l.p50), formatMs(l.p95), formatMs(l.p99)]),
    ),
    ...(report.budgets.length === 0
      ? []
      : [
          section(
            'Spend budgets (USD, this period, from telemetry rows)',
            BUDGET_COLUMNS.map((header, i) => (BUDGET_TEXT_COLUMNS.includes(i) ? { header } : { header, align: 'right' as const })),
            budgetRows(report.budgets),
          ),
        ]),
    costSection('Cost per source', 'source', summary.costBySource),
    costSection('Cost per tenant', 'tenant', summary.costByTenant),
    section(
      'Tenants (calls, failed calls, attempts’ cost in USD, wait for admission per priority class)',
      TENANT_COLUMNS.map((header, i) => (i === 0 ? { header } : { header, align: 'right' as const })),
      tenantRows(summary.tenants),
    ),
    promptCacheSection('Prompt cache per source', 'source', summary.promptCacheBySource),
    promptCacheSection('Prompt cache per tenant', 'tenant', summary.promptCacheByTenant),
    ...(report.batchJobs.length === 0
      ? []
      : [
          section(
            'Batch jobs (PGW_BATCH__DIR, newest first; cost in USD)',
            BATCH_JOB_COLUMNS.map((header, i) => (i < 3 ? { header } : { header, align: 'right' as const })),
            batchJobRows(report.batchJobs),
          ),
        ]),
    `calls over time: ${summary.callsOverTime.length} bucket(s) of ${formatDuration(report.bucketMs)} (see --html for the chart)`,
  ];
  return `${sections.join('\n\n')}\n`;
}

function section(title: string, columns: Parameters<typeof renderTable>[0], rows: string[][]): string {
  return rows.length === 0 ? `${title}\n  (none)` : `${title}\n${renderTable(columns, rows)}`;
}

function costSection(title: string, what: string, costs: Readonly<Record<string, number>>): string {
  const rows = byValueDesc(costs).map(([key, usd]) => [key, formatUsd(usd)]);
  if (rows.length > 1) rows.push(['(total)', formatUsd(totalCost(costs))]);
  return section(`${title} (USD)`, [{ header: what }, { header: 'cost', align: 'right' }], rows);
}

function promptCacheSection(title: string, what: string, uses: Report['summary']['promptCacheBySource']): string {
  const columns = [{ header: what }, ...PROMPT_CACHE_HEADERS.map((header) => ({ header, align: 'right' as const }))];
  return section(`${title} (saving in USD)`, columns, promptCacheRows(uses));
}
