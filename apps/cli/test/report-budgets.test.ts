/** `pgw report` and spend budgets: the env's budgets, each against its scope's telemetry spend in its current period. */
import { summarize } from '@pgw/telemetry-sqlite';
import { afterAll, describe, expect, test } from 'vitest';
import { budgetSpends, budgetsInEnv } from '../src/report/budgets.js';
import { renderHtmlPage } from '../src/report/html-page.js';
import { renderSummaryTable } from '../src/report/summary-table.js';
import { fixtureReport } from './report-fixture.js';
import { removeTempDirs } from './run-cli.js';
import { FIXTURE_START, telemetryFile } from './telemetry-fixture.js';

afterAll(removeTempDirs);

describe('spend budgets in the report', () => {
  test('reads every budget of the env, defaults as the client does, and leaves out a bad one', () => {
    const env = new Map([
      ['LLM__BUDGET__USD', '5'],
      ['EMBED__BUDGET__USD', '200'],
      ['EMBED__BUDGET__PERIOD', 'month'],
      ['EMBED__BUDGET__PER', 'tenant'],
      ['BROKEN__BUDGET__USD', '-1'],
      ['LLM__SOURCE__A__BASE_URL', 'http://127.0.0.1:9/v1'],
    ]);
    expect(budgetsInEnv(env)).toEqual([
      { scope: 'EMBED', policy: { usd: 200, period: 'month', per: 'tenant' } },
      { scope: 'LLM', policy: { usd: 5, period: 'day', per: 'scope' } },
    ]);
  });

  test('spend is the scope’s cost since its period started; the tables show it against the budget', async () => {
    const path = await telemetryFile();
    const now = FIXTURE_START + 3 * 3_600_000;
    const whole = await summarize({ path }, { bucketMs: 3_600_000 });
    const spends = await budgetSpends(
      [
        { scope: 'LLM', policy: { usd: 1, period: 'day', per: 'scope' } },
        { scope: 'OTHER', policy: { usd: 2, period: 'hour', per: 'scope' } },
      ],
      (range) => summarize({ path }, { ...range, bucketMs: 3_600_000 }),
      now,
    );
    expect(spends[0]).toMatchObject({ scope: 'LLM', since: Date.UTC(2026, 0, 15), resetAt: Date.UTC(2026, 0, 16) });
    expect(spends[0]!.spentUsd).toBeGreaterThan(0);
    expect(spends[0]!.spentUsd).toBeCloseTo(whole.costByScope.LLM!, 10);
    expect(spends[1]).toMatchObject({ scope: 'OTHER', spentUsd: 0, since: Date.UTC(2026, 0, 15, 11) });

    const report = { ...(await fixtureReport()), budgets: spends };
    const table = renderSummaryTable(report);
    expect(table).toContain('Spend budgets (USD, this period, from telemetry rows)');
    expect(table).toMatch(/LLM\s+day\s+\$?1\.00/);
    const html = renderHtmlPage(report);
    expect(html).toContain('Spend budgets (this period)');
    expect(html).toContain('<td>OTHER</td>');
    expect(renderSummaryTable(await fixtureReport())).not.toContain('Spend budgets');
  });
});
