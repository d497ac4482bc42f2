/** `pgw report` shows one row per tenant — calls, failed calls, cost, wait p50/p95 per priority class — from SQLite and from PostgreSQL. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TelemetryRow } from '@pgw/core';
import { PgRecorder } from '@pgw/telemetry-pg';
import { afterAll, describe, expect, test } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { dropSchema, TEST_DSN as DSN, uniqueSchema } from './pg-schema.js';
import { removeTempDirs, runCli, tempDir } from './run-cli.js';
import { FIXTURE_START, HOSTILE_TENANT, telemetryFile } from './telemetry-fixture.js';

const SCHEMA = uniqueSchema('pgw_cli_tenants');

function attempt(i: number, fields: Partial<TelemetryRow>): TelemetryRow {
  return { ts: FIXTURE_START + i, scope: 'LLM', operation: 'chat', eventKind: 'attempt', callId: `call-${i}`, logicalCallId: `call-${i}`, status: 'ok', ...fields };
}

/** acme: three interactive calls (waits 10, 20, 300 ms) and a failed batch one (2 s); the tenant "": one call without a wait; a hostile name. */
const ROWS: TelemetryRow[] = [
  attempt(1, { tenantId: 'acme', priority: 'interactive', waitMs: 10, costUsd: 0.01 }),
  attempt(2, { tenantId: 'acme', priority: 'interactive', waitMs: 20, costUsd: 0.01 }),
  attempt(3, { tenantId: 'acme', priority: 'interactive', waitMs: 300, costUsd: 0.01 }),
  attempt(4, { tenantId: 'acme', priority: 'batch', waitMs: 2_000, status: 'error', errorType: 'TransientError' }),
  { ...attempt(5, { tenantId: 'acme', eventKind: 'terminal_failure', status: 'error', errorType: 'AllSourcesExhausted' }), logicalCallId: 'call-4' },
  attempt(6, { tenantId: '', priority: 'interactive', costUsd: 0.5 }),
  attempt(7, { tenantId: HOSTILE_TENANT, priority: 'batch', waitMs: 40 }),
];

afterAll(async () => {
  removeTempDirs();
  await dropSchema(SCHEMA);
});

function expectTenantTable(stdout: string): void {
  expect(stdout).toMatch(/Tenants \(.*\)\n\s+tenant\s+calls\s+errors\s+cost\s+interactive wait p50\s+interactive wait p95\s+batch wait p50\s+batch wait p95\n/);
  expect(stdout).toMatch(/\n\s+acme\s+4\s+1\s+\$0\.0300\s+20 ms\s+300 ms\s+2000 ms\s+2000 ms\n/);
  expect(stdout).toMatch(/\n\s+\(none\)\s+1\s+0\s+\$0\.5000\s+–\s+–\s+–\s+–\n/);
  // The hostile name is defused in the terminal: no escape sequence reaches it.
  expect(stdout).not.toContain('\u001b[31m');
}

describe('pgw report: tenants', () => {
  test('from a SQLite file, in the text and the HTML page', async () => {
    const file = await telemetryFile(ROWS);
    const html = join(tempDir(), 'report.html');
    const run = await runCli(['report', '--sqlite', file, '--html', html]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expectTenantTable(run.stdout);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<h2>Tenants</h2>');
    expect(page).toMatch(/<td>acme<\/td><td class="n">4<\/td><td class="n">1<\/td><td class="n">\$0\.0300<\/td><td class="n">20 ms<\/td><td class="n">300 ms<\/td>/);
    expect(page).toContain('<td>(none)</td>');
    expect(page).not.toContain('<script>alert');
  });

  test('from PostgreSQL, in the text and the JSON', async () => {
    const recorder = await PgRecorder.open({ dsn: DSN, schema: SCHEMA });
    try {
      for (const row of ROWS) recorder.record(row);
      await recorder.flush();
    } finally {
      await recorder.close();
    }
    const env = { PGW_TELEMETRY_BACKEND: 'postgres', PGW_TELEMETRY_DSN: DSN };
    const text = await runCli(['report', '--pg-schema', SCHEMA], { env });
    expect(text.code, text.stderr).toBe(EXIT.ok);
    expectTenantTable(text.stdout);
    const json = await runCli(['report', '--pg-schema', SCHEMA, '--json'], { env });
    const { summary } = JSON.parse(json.stdout) as { summary: { tenants: Record<string, unknown> } };
    expect(summary.tenants['acme']).toMatchObject({ calls: 4, failedCalls: 1, waitByPriority: { interactive: { samples: 3, p50: 20, p95: 300 }, batch: { samples: 1, p50: 2_000, p95: 2_000 } } });
  });
});
