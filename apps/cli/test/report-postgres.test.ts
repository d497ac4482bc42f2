/** `pgw report --dsn` spawned over a real PostgreSQL table filled through `@pgw/telemetry-pg`'s recorder. */
import { PgRecorder } from '@pgw/telemetry-pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { dropSchema, TEST_DSN as DSN, uniqueSchema } from './pg-schema.js';
import { removeTempDirs, runCli } from './run-cli.js';
import { telemetryRows } from './telemetry-fixture.js';

const SCHEMA = uniqueSchema('pgw_cli');

beforeAll(async () => {
  const recorder = await PgRecorder.open({ dsn: DSN, schema: SCHEMA });
  try {
    const rows = telemetryRows();
    for (const row of rows) recorder.record(row);
    await recorder.flush();
    expect(recorder.stats()).toMatchObject({ written: rows.length, dropped: 0 });
  } finally {
    await recorder.close();
  }
});

afterAll(async () => {
  removeTempDirs();
  await dropSchema(SCHEMA);
});

test('reads the summary from PostgreSQL (DSN from PGW_TELEMETRY_DSN, schema by flag)', async () => {
  const run = await runCli(['report', '--pg-schema', SCHEMA, '--json'], {
    env: { PGW_TELEMETRY_BACKEND: 'postgres', PGW_TELEMETRY_DSN: DSN },
  });
  expect(run.code, run.stderr).toBe(EXIT.ok);
  const report = JSON.parse(run.stdout) as { store: string; summary: Record<string, unknown> };
  expect(report.store).toContain(`schema ${SCHEMA}`);
  expect(report.summary).toMatchObject({
    calls: 24,
    attempts: 30,
    retries: 6,
    failuresByType: { AllSourcesExhausted: 1, CallDeadlineExceeded: 1 },
    attemptErrorsByType: { TransientError: 6, SourceDeadError: 1 },
    attemptErrorsBySource: { alpha: { TransientError: 1 }, beta: { TransientError: 5, SourceDeadError: 1 } },
    cancelledAttempts: 1,
    costBySource: { alpha: expect.closeTo(0.018, 9), beta: expect.closeTo(0.04, 9) },
  });
});
