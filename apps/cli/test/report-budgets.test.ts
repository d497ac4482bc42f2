/** `pgw report` and spend budgets: the env's budgets, each against its scope's telemetry spend in its current period. */
import { summarize } from '@pgw/telemetry-sqlite';
import { afterAll, describe, expect, test } from 'vitest';
import { budgetSpends, budgetsInEnv } from '../src/report/budgets.js';
import { renderHtmlPage } from '../src/report/html-page.js';
import { renderSummaryTable } from '../src/report/summary-table.js';
import { fixtureReport } from './report-fixture.js';
import { removeTempDirs } from './run-cli.js';
import type { TelemetrySummary } from '@pgw/core';
import { FIXTURE_START, HOSTILE_TENANT, telemetryFile } from './telemetry-fixture.js';

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
    expect(table).toMatch(/LLM\s+—\s+day\s+\$1\.00\s/);
    const html = renderHtmlPage(report);
    expect(html).toContain('Spend budgets (this period)');
    expect(html).toContain('<td>OTHER</td>');
    expect(renderSummaryTable(await fixtureReport())).not.toContain('Spend budgets');
  });

  test('a per-tenant budget shows each tenant against a budget of its own, most spent first', async () => {
    const path = await telemetryFile();
    const whole = await summarize({ path }, { bucketMs: 3_600_000 });
    const [spend] = await budgetSpends(
      [{ scope: 'LLM', policy: { usd: 0.05, period: 'total', per: 'tenant' } }],
      (range) => summarize({ path }, { ...range, bucketMs: 3_600_000 }),
      FIXTURE_START + 3 * 3_600_000,
    );
    const perTenant = whole.costByScopeTenant.LLM!;
    expect(perTenant.acme).toBeGreaterThan(perTenant[HOSTILE_TENANT]!);
    expect(spend!.tenants).toEqual([
      { tenantId: 'acme', spentUsd: perTenant.acme },
      { tenantId: HOSTILE_TENANT, spentUsd: perTenant[HOSTILE_TENANT] },
    ]);
    expect(spend!.spentUsd).toBeCloseTo(whole.costByScope.LLM!, 10);

    const report = { ...(await fixtureReport()), budgets: [spend!] };
    const used = (usd: number) => `${((100 * usd) / 0.05).toFixed(1)}%`;
    const table = renderSummaryTable(report);
    expect(table).toMatch(new RegExp(`LLM\\s+acme\\s+total\\s+\\$0\\.0500 per tenant\\s+\\$[0-9.]+\\s+${used(perTenant.acme!).replace('.', '\\.')}\\s+never`));
    expect(table).toContain(used(perTenant[HOSTILE_TENANT]!));
    expect(table).not.toContain('\u001b');
    const html = renderHtmlPage(report);
    expect(html).toContain('<td>acme</td>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
  });

  test('shows the ten tenants that spent most, then the rest together', async () => {
    const costs = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`t${i}`, (i + 1) / 100]));
    const summary = { costByScope: { LLM: 0.78 }, costByScopeTenant: { LLM: costs } } as unknown as TelemetrySummary;
    const [spend] = await budgetSpends([{ scope: 'LLM', policy: { usd: 1, period: 'day', per: 'tenant' } }], async () => summary, FIXTURE_START);
    expect(spend!.tenants).toHaveLength(12);
    const rows = renderSummaryTable({ ...(await fixtureReport()), budgets: [spend!] }).split('\n');
    const tenantsShown = rows.filter((row) => /^\s+LLM\s+t\d+/.test(row)).map((row) => row.trim().split(/\s+/)[1]);
    expect(tenantsShown).toEqual(['t11', 't10', 't9', 't8', 't7', 't6', 't5', 't4', 't3', 't2']);
    expect(rows.some((row) => /LLM\s+\(2 more\)\s+day\s+\$1\.00 per tenant\s+\$0\.0300\s+—/.test(row))).toBe(true);
  });

  test('a per-tenant budget nobody spent from yet shows one empty row', async () => {
    const summary = { costByScope: {}, costByScopeTenant: {} } as unknown as TelemetrySummary;
    const [spend] = await budgetSpends([{ scope: 'LLM', policy: { usd: 1, period: 'day', per: 'tenant' } }], async () => summary, FIXTURE_START);
    expect(spend).toMatchObject({ spentUsd: 0, tenants: [] });
    expect(renderSummaryTable({ ...(await fixtureReport()), budgets: [spend!] })).toMatch(/LLM\s+—\s+day\s+\$1\.00 per tenant\s+\$0\s+—/);
  });
});
