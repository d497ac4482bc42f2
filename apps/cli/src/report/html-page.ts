/**
 * The self-contained HTML report: inline CSS and inline SVG charts, no script and no external
 * resource, so it can be mailed or archived as one file. All database text is escaped.
 */
import { BUDGET_COLUMNS, BUDGET_TEXT_COLUMNS, budgetRows } from './budgets.js';
import { formatCount, formatDuration, formatInstant, formatMs, formatRange, formatUsd } from './format.js';
import { element as el, text } from './markup.js';
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
import { callsOverTimeChart, costChart, failuresChart, latencyChart } from './svg-charts.js';

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px auto; padding: 0 32px; max-width: 1400px; color: #222; background: #fff; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.meta { color: #666; margin: 0; }
.totals { display: flex; gap: 12px; margin: 20px 0; }
.totals div { flex: 1; border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; }
.totals b { display: block; font-size: 20px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { padding: 3px 12px 3px 0; text-align: left; }
td.n, th.n { text-align: right; } th { border-bottom: 1px solid #ccc; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
svg .grid { stroke: #eee; } svg .axis { stroke: #999; } svg .group { font-weight: bold; } svg .empty { fill: #999; }
`;

/** Defence in depth beside escaping: the page may run no script and load nothing from anywhere. */
const CSP = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`;

export function renderHtmlPage(report: Report): string {
  const { summary } = report;
  const failures = byValueDesc(summary.failuresByType);
  const attemptErrors = attemptErrorRows(summary);
  const note = cancelledAttemptsNote(summary);
  const costBySource = byValueDesc(summary.costBySource);
  const costByTenant = byValueDesc(summary.costByTenant);
  const range = formatRange(report.since, report.until);
  const totals: Array<[string, string]> = [
    ['calls', formatCount(summary.calls)],
    ['attempts', formatCount(summary.attempts)],
    ['retries', formatCount(summary.retries)],
    ['cache hits', formatCount(summary.cacheHits)],
    ['failed calls', formatCount(failedCalls(summary))],
    ['failed attempts', formatCount(failedAttempts(summary))],
    ['cost', formatUsd(totalCost(summary.costBySource))],
  ];
  const latencyRows = Object.entries(summary.latency)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([source, l]) => [source, formatCount(l.samples), formatMs(l.p50), formatMs(l.p95), formatMs(l.p99)]);

  const body = [
    el('h1', {}, 'pgw telemetry report'),
    el('p', { class: 'meta' }, text(`${report.sourceLabel} · ${range} · generated ${formatInstant(report.generatedAt)}`)),
    el('section', { class: 'totals' }, ...totals.map(([label, value]) => el('div', {}, el('b', {}, text(value)), text(label)))),
    el('h2', {}, 'Calls by operation'),
    table(OPERATION_COLUMNS, operationRows(summary)),
    el('h2', {}, `Calls over time (${text(formatDuration(report.bucketMs))} buckets)`),
    callsOverTimeChart(summary.callsOverTime, report.bucketMs, report.since, report.until),
    el('h2', {}, 'Latency per source'),
    latencyChart(summary.latency),
    table(['source', 'samples', 'p50', 'p95', 'p99'], latencyRows),
    el('h2', {}, 'Failures by error type'),
    failuresChart(failures, attemptErrors.map(({ type, count }) => [type, count])),
    table(['error_type', 'failed calls'], failures.map(([type, n]) => [type, formatCount(n)])),
    table(
      ['error_type', 'failed attempts', 'sources'],
      attemptErrors.map(({ type, count, sources }) => [type, formatCount(count), sources]),
      [0, 2],
    ),
    note === undefined ? '' : el('p', { class: 'meta' }, text(note)),
    ...(report.budgets.length === 0 ? [] : [el('h2', {}, 'Spend budgets (this period)'), table(BUDGET_COLUMNS, budgetRows(report.budgets), BUDGET_TEXT_COLUMNS)]),
    el('h2', {}, 'Cost'),
    costChart(costBySource, costByTenant),
    table(['source', 'cost'], costBySource.map(([key, usd]) => [key, formatUsd(usd)])),
    table(['tenant', 'cost'], costByTenant.map(([key, usd]) => [key, formatUsd(usd)])),
    el('h2', {}, 'Tenants'),
    table(TENANT_COLUMNS, tenantRows(summary.tenants)),
    el('h2', {}, 'Prompt cache'),
    table(['source', ...PROMPT_CACHE_HEADERS], promptCacheRows(summary.promptCacheBySource)),
    table(['tenant', ...PROMPT_CACHE_HEADERS], promptCacheRows(summary.promptCacheByTenant)),
    ...(report.batchJobs.length === 0 ? [] : [el('h2', {}, 'Batch jobs'), table(BATCH_JOB_COLUMNS, batchJobRows(report.batchJobs), [0, 1, 2])]),
  ];
  return `<!doctype html>\n${el(
    'html',
    { lang: 'en' },
    el('head', {}, '<meta charset="utf-8">', CSP, el('title', {}, 'pgw telemetry report'), el('style', {}, STYLE)),
    el('body', {}, ...body),
  )}\n`;
}

/** Columns listed in `textColumns` are text, the others numbers (right-aligned). Empty tables are left out. */
function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, textColumns: readonly number[] = [0]): string {
  if (rows.length === 0) return '';
  const cell = (tag: 'th' | 'td', value: string, i: number) =>
    el(tag, textColumns.includes(i) ? {} : { class: 'n' }, text(value));
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, ...headers.map((h, i) => cell('th', h, i)))),
    el('tbody', {}, ...rows.map((row) => el('tr', {}, ...row.map((value, i) => cell('td', value, i))))),
  );
}
