/** Rendering of a report (terminal table, HTML page, charts) and the report's time flags, in process. */
import { InvalidArgumentError } from 'commander';
import { afterAll, describe, expect, test } from 'vitest';
import { bucketWidthFor } from '../src/report/bucket-width.js';
import { renderHtmlPage } from '../src/report/html-page.js';
import type { Report } from '../src/report/report-model.js';
import { describeSummarySource } from '../src/report/summary-source.js';
import { renderSummaryTable } from '../src/report/summary-table.js';
import { niceScale } from '../src/report/svg-charts.js';
import { parseBucket, parseInstant, positiveInteger } from '../src/flag-values.js';
import { fixtureReport } from './report-fixture.js';
import { removeTempDirs } from './run-cli.js';
import { HOSTILE_TENANT } from './telemetry-fixture.js';

afterAll(removeTempDirs);

const EMPTY: Report = {
  batchJobs: [],
  summary: {
    calls: 0,
    attempts: 0,
    cacheHits: 0,
    failuresByType: {},
    attemptErrorsByType: {},
    attemptErrorsBySource: {},
    cancelledAttempts: 0,
    retries: 0,
    operations: {},
    latency: {},
    costBySource: {},
    costByTenant: {},
    costByScope: {},
    costByScopeTenant: {},
    promptCacheBySource: {},
    promptCacheByTenant: {},
    tenants: {},
    callsOverTime: [],
  },
  sourceLabel: 'sqlite empty.sqlite',
  bucketMs: 3_600_000,
  generatedAt: Date.UTC(2026, 0, 15),
  budgets: [],
};

describe('HTML page', () => {
  test('escapes every database text, embeds no script or external resource, and forbids both by CSP', async () => {
    const html = renderHtmlPage(await fixtureReport());
    expect(html).not.toContain(HOSTILE_TENANT);
    expect(html).not.toMatch(/<script|\bsrc=|\bhref=|https?:\/\/|\u001b/);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;\\u001b[31m');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).toContain('<h2>Batch jobs</h2>');
    // One bar per bucket (24 of one call each): 22 succeeded, 2 failed.
    const bars = /<svg [^>]*data-chart="calls-over-time".*?<g class="bars">(.*?)<\/g>/.exec(html)![1]!;
    expect(bars.match(/<rect [^>]*fill="#4e79a7"/g)).toHaveLength(22);
    expect(bars.match(/<rect [^>]*fill="#e15759"/g)).toHaveLength(2);
    expect(bars).toContain('<title>08:25: 1 failed</title>');
  });

  test('the failures chart shows failed calls and failed attempts as two series; tables and cancelled count', async () => {
    const html = renderHtmlPage(await fixtureReport());
    const chart = /<svg [^>]*data-chart="failures".*?<\/svg>/.exec(html)![0];
    expect(chart.match(/<text [^>]*class="group"[^>]*>[^<]*/g)!.map((t) => t.replace(/.*>/, ''))).toEqual([
      'failed calls',
      'failed attempts (retried or not)',
    ]);
    expect(chart.match(/<rect [^>]*fill="#e15759"/g)).toHaveLength(2);
    expect(chart.match(/<rect [^>]*fill="#f28e2b"/g)).toHaveLength(2);
    expect(chart).toContain('<title>TransientError: 6</title>');
    expect(chart).toContain('<title>SourceDeadError: 1</title>');
    expect(html).toMatch(/<th class="n">failed attempts<\/th><th>sources<\/th>/);
    expect(html).toContain('<td>TransientError</td><td class="n">6</td><td>beta 5, alpha 1</td>');
    expect(html).toContain('cancelled attempts (not counted as failed): 1');
  });

  test('a run whose calls all succeeded in the end still charts its failed attempts', () => {
    const summary = {
      ...EMPTY.summary,
      attemptErrorsByType: { TransientError: 3 },
      attemptErrorsBySource: { flaky: { TransientError: 3 } },
    };
    const html = renderHtmlPage({ ...EMPTY, summary });
    const chart = /<svg [^>]*data-chart="failures".*?<\/svg>/.exec(html)![0];
    expect(chart).not.toContain('no data in this range');
    expect(chart).toMatch(/failed calls<\/text><text [^>]*class="empty"[^>]*>none<\/text>/);
    expect(chart.match(/<rect [^>]*fill="#f28e2b"/g)).toHaveLength(1);
    expect(html).not.toContain('cancelled attempts');
  });

  test('an empty range still yields the four charts, each saying there is no data', () => {
    const html = renderHtmlPage(EMPTY);
    for (const kind of ['calls-over-time', 'latency', 'failures', 'cost']) {
      expect(html).toMatch(new RegExp(`<svg [^>]*data-chart="${kind}"[^>]*>.*?no data in this range</text></svg>`));
    }
  });
});

describe('terminal table', () => {
  test('shows totals, failed calls and attempts, latency and cost with a total row; controls are defused', async () => {
    const table = renderSummaryTable(await fixtureReport());
    expect(table).toMatch(/^\s+24\s+30\s+6\s+0\s+2\s+7$/m);
    expect(table).toMatch(/^Failed attempts by error type \(retried or not\)\n\s+error_type\s+attempts\s+sources\n/m);
    expect(table).toMatch(/^\s+TransientError\s+6\s+beta 5, alpha 1$/m);
    expect(table).toMatch(/^\s+SourceDeadError\s+1\s+beta 1\n\s+cancelled attempts \(not counted as failed\): 1$/m);
    expect(table).toMatch(/^\s+beta\s+10\s+410 ms\s+530 ms\s+530 ms$/m);
    expect(table).toMatch(/^\s+acme\s+\$0\.0360$/m);
    expect(table).not.toContain('\u001b');
    expect(table).toContain('calls over time: 24 bucket(s) of 5m');
    expect(table).toMatch(/^Batch jobs \(PGW_BATCH__DIR, newest first; cost in USD\)\n\s+job\s+tenant\s+status\s+items\s+done\s+failed\s+cost\s+budget\n/m);
    expect(table).toMatch(/^\s+batch_nightly\s+.*\s+paused \(budget\)\s+2,000\s+1,200\s+3\s+\$4\.50\s+\$5\.00$/m);
    expect(table).toMatch(/^\s+batch_evals\s+\(none\)\s+completed\s+10\s+10\s+0\s+\$0\.0125\s+–$/m);
  });

  test('empty sections say so', () => {
    const table = renderSummaryTable(EMPTY);
    expect(table).toContain('Failures by error type (failed calls)\n  (none)');
    expect(table).toContain('Failed attempts by error type (retried or not)\n  (none)\n\n');
    expect(table).not.toContain('cancelled attempts');
    expect(table).toContain('Cost per tenant (USD)\n  (none)');
    expect(table).toContain('range: start … now');
    expect(table).not.toContain('Batch jobs');
  });
});

describe('report flags and scales', () => {
  const now = Date.UTC(2026, 0, 15, 12);

  test('flag values: instants (ISO, UTC unless zoned, or a duration ago), bucket widths, positive integers', () => {
    expect(parseInstant('2026-01-15', now)).toBe(Date.UTC(2026, 0, 15));
    expect(parseInstant('2026-01-15T08:30', now)).toBe(Date.UTC(2026, 0, 15, 8, 30));
    expect(parseInstant('2026-01-15T08:30:00+02:00', now)).toBe(Date.UTC(2026, 0, 15, 6, 30));
    expect(parseInstant('24h', now)).toBe(now - 86_400_000);
    expect(parseInstant('90s', now)).toBe(now - 90_000);
    for (const bad of ['yesterday', '2026-13-45', '15/01/2026', '-1h', '']) {
      expect(() => parseInstant(bad, now), bad).toThrow(InvalidArgumentError);
    }
    expect(parseBucket('15m')).toBe(900_000);
    expect(() => parseBucket('500ms')).toThrow(InvalidArgumentError);
    expect(() => parseBucket('0s')).toThrow(InvalidArgumentError);
    expect(positiveInteger('32')).toBe(32);
    for (const bad of ['0', '-1', '1.5', 'x', '']) expect(() => positiveInteger(bad), bad).toThrow(InvalidArgumentError);
  });

  test('bucket widths keep at most 60 buckets; axis scales are round and cover the maximum', () => {
    expect(bucketWidthFor(800)).toBe(1_000);
    expect(bucketWidthFor(6_000)).toBe(1_000);
    expect(bucketWidthFor(90_000)).toBe(5_000);
    expect(bucketWidthFor(30 * 60_000)).toBe(60_000);
    expect(bucketWidthFor(2 * 3_600_000)).toBe(300_000);
    expect(bucketWidthFor(7 * 86_400_000)).toBe(21_600_000);
    expect(bucketWidthFor(10 * 365 * 86_400_000)).toBe(604_800_000);
    expect(niceScale(0)).toEqual({ max: 1, step: 0.2 });
    expect(niceScale(1, { integer: true })).toEqual({ max: 1, step: 1 });
    expect(niceScale(530)).toEqual({ max: 600, step: 200 });
    expect(niceScale(0.04)).toEqual({ max: 0.04, step: 0.01 });
  });

  test('a DSN is shown without its password', () => {
    const dsn = 'postgres://pgw:s3cret@db:5432/t?password=also';
    const label = describeSummarySource({ kind: 'postgres', dsn, schema: 'telemetry' });
    expect(label).not.toContain('s3cret');
    expect(label).not.toContain('also');
    expect(label).toBe('postgres postgres://pgw:***@db:5432/t?password=*** schema telemetry');
  });
});
