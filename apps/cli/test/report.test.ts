/** `pgw report` spawned over a real SQLite telemetry file filled through the recorder. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { removeTempDirs, runCli, tempDir } from './run-cli.js';
import type { TelemetryRow } from '@pgw/core';
import { FIXTURE_START, telemetryFile } from './telemetry-fixture.js';

let file: string;

beforeAll(async () => {
  file = await telemetryFile();
});

afterAll(removeTempDirs);

describe.concurrent('pgw report (spawned)', () => {
  test('prints the summary table and writes a self-contained HTML page', async () => {
    const html = join(tempDir(), 'report.html');
    const run = await runCli(['report', '--sqlite', file, '--html', html]);

    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(run.stdout).toMatch(
      /calls\s+attempts\s+retries\s+cache hits\s+failed calls\s+failed attempts\n.*\n\s+24\s+30\s+6\s+0\s+2\s+7\n/,
    );
    expect(run.stdout).toMatch(/AllSourcesExhausted\s+1/);
    expect(run.stdout).toMatch(/CallDeadlineExceeded\s+1/);
    expect(run.stdout).toMatch(/Failed attempts by error type \(retried or not\)\n(.*\n){2}\s+TransientError\s+6\s+beta 5, alpha 1\n/);
    expect(run.stdout).toMatch(/alpha\s+12\s+\d+ ms\s+\d+ ms\s+\d+ ms/);
    expect(run.stdout).toMatch(/beta\s+\$0\.0400\n\s+alpha\s+\$0\.0180\n\s+\(total\)\s+\$0\.0580/);
    // The hostile tenant id arrives defused: its escape character is shown, not sent to the terminal.
    expect(run.stdout).toContain('<script>alert("x")</script>&\\u001b[31m');
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stderr).toContain(`wrote ${html}`);

    const page = readFileSync(html, 'utf8');
    expect(page.match(/<svg [^>]*data-chart="(calls-over-time|latency|failures|cost)"/g)).toHaveLength(4);
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
  });

  test('shows the budgets of ./.env, a per-tenant one tenant by tenant, in the table and the JSON', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), `LLM__BUDGET__USD=0.05\nLLM__BUDGET__PERIOD=total\nLLM__BUDGET__PER=tenant\n`);
    const [table, json] = await Promise.all([
      runCli(['report', '--sqlite', file], { cwd }),
      runCli(['report', '--sqlite', file, '--json'], { cwd }),
    ]);
    expect(table.code, table.stderr).toBe(EXIT.ok);
    expect(table.stdout).toMatch(/Spend budgets \(USD, this period, from telemetry rows\)\n.*\n.*\n\s+LLM\s+acme\s+total\s+\$0\.0500 per tenant\s+\$0\.\d{4}\s+\d+\.\d%\s+never\n\s+LLM\s+<script>/);
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const [budget] = (JSON.parse(json.stdout) as { budgets: Array<Record<string, unknown>> }).budgets;
    expect(budget).toMatchObject({ scope: 'LLM', usd: 0.05, period: 'total', per: 'tenant', since: '1970-01-01T00:00:00.000Z', resetAt: null });
    const tenants = budget!.tenants as Array<{ tenantId: string; spentUsd: number }>;
    expect(tenants.map((tenant) => tenant.tenantId)).toEqual(['acme', '<script>alert("x")</script>&\u001b[31m']);
    expect(tenants[0]!.spentUsd + tenants[1]!.spentUsd).toBeCloseTo(budget!.spentUsd as number, 6);
  });

  test('takes the store from ./.env and prints JSON for a time range', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), `PGW_TELEMETRY_BACKEND=sqlite\nPGW_SQLITE_PATH=${file}\n`);
    const run = await runCli(['report', '--json', '--since', '2026-01-15T08:30', '--until', '2026-01-15T09:00Z'], { cwd });

    expect(run.code, run.stderr).toBe(EXIT.ok);
    const report = JSON.parse(run.stdout) as {
      since: string;
      until: string;
      bucketMs: number;
      summary: {
        calls: number;
        failuresByType: object;
        attemptErrorsByType: object;
        attemptErrorsBySource: object;
        cancelledAttempts: number;
        callsOverTime: unknown[];
      };
    };
    // A zone-less time is UTC; six calls start every 5 minutes in [08:30, 09:00).
    expect(report).toMatchObject({ since: '2026-01-15T08:30:00.000Z', until: '2026-01-15T09:00:00.000Z', bucketMs: 60_000 });
    expect(report.summary.calls).toBe(6);
    expect(report.summary.failuresByType).toEqual({});
    // Of those six calls, call 8 succeeded after a failed attempt on beta.
    expect(report.summary.attemptErrorsByType).toEqual({ TransientError: 1 });
    expect(report.summary.attemptErrorsBySource).toEqual({ beta: { TransientError: 1 } });
    expect(report.summary.cancelledAttempts).toBe(0);
    expect(report.summary.callsOverTime).toHaveLength(6);
  });

  test('a run of a few seconds gets one-second buckets, and chat and embedding calls are shown apart', async () => {
    const start = FIXTURE_START;
    const row = (i: number, fields: Partial<TelemetryRow>): TelemetryRow => ({
      ts: start + i * 1000,
      scope: 'LLM',
      operation: 'chat',
      eventKind: 'attempt',
      callId: `c${i}`,
      logicalCallId: `l${i}`,
      source: 'alpha',
      status: 'ok',
      ...fields,
    });
    // Five chat calls, one a second, then one embedding call of three batches (all first tries).
    const rows = [0, 1, 2, 3, 4].map((i) => row(i, {}));
    for (const batch of [0, 1, 2]) rows.push(row(5, { operation: 'embed', scope: 'EMBED', callId: `e${batch}`, logicalCallId: 'embed-1' }));
    const file = await telemetryFile(rows);
    const [json, table] = await Promise.all([runCli(['report', '--sqlite', file, '--json']), runCli(['report', '--sqlite', file])]);

    expect(json.code, json.stderr).toBe(EXIT.ok);
    const report = JSON.parse(json.stdout) as { bucketMs: number; summary: { retries: number; callsOverTime: unknown[] } };
    expect(report.bucketMs).toBe(1000);
    expect(report.summary.callsOverTime).toHaveLength(6);
    expect(report.summary.retries).toBe(0);

    expect(table.code, table.stderr).toBe(EXIT.ok);
    expect(table.stdout).toMatch(/operation\s+calls\s+attempts\s+retries\s+failed calls\n.*\n\s+chat\s+5\s+5\s+0\s+0\n\s+embed\s+1\s+3\s+0\s+0\n/);
  });

  test('no store configured names PGW_TELEMETRY_BACKEND (exit 3); an absent --sqlite file is a usage error (exit 2)', async () => {
    const absent = join(tempDir(), 'absent.sqlite');
    const [noStore, missingFile] = await Promise.all([runCli(['report']), runCli(['report', '--sqlite', absent])]);
    expect(noStore.code).toBe(EXIT.config);
    expect(noStore.stderr).toMatch(/PGW_TELEMETRY_BACKEND: is unset/);
    expect(missingFile.code).toBe(EXIT.usage);
    expect(missingFile.stderr).toContain('--sqlite: no such file');
  });
});
