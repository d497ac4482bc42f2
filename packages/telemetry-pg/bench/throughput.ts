/**
 * Telemetry rows/s of the Postgres store with batching (SPEC §16), in a scratch schema dropped afterwards.
 * Run: PGW_TEST_PG_DSN=postgres://… npx tsx --conditions=@pgw/source bench/throughput.ts [rows=50000]
 */
import pg from 'pg';
import type { TelemetryRow } from '@pgw/core';
import { PgRecorder } from '../src/index.js';

const dsn = process.env.PGW_TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.argv[2] ?? 50_000);
const schema = `pgw_bench_${Date.now().toString(36)}`;

function benchRow(i: number): TelemetryRow {
  return {
    ts: Date.now(),
    scope: 'LLM',
    operation: 'chat',
    eventKind: 'attempt',
    callId: `call-${i}`,
    logicalCallId: `logical-${i >> 1}`,
    tenantId: `tenant-${i % 7}`,
    meta: { job: 'bench', index: i },
    source: `source-${i % 3}`,
    model: 'qwen2.5-72b-instruct',
    status: 'ok',
    promptTokens: 812,
    completionTokens: 230,
    usageSource: 'measured',
    costUsd: 0.000_42,
    latencyMs: 850 + (i % 400),
    attempts: 1,
    requestText: 'q'.repeat(500),
    responseText: 'a'.repeat(500),
  };
}

async function run(batchSize: number, count: number): Promise<void> {
  const recorder = await PgRecorder.open({ dsn, schema, table: `calls_${batchSize}`, batchSize, maxQueue: count });
  const started = performance.now();
  for (let i = 0; i < count; i += 1) recorder.record(benchRow(i));
  const recorded = performance.now();
  await recorder.close();
  const done = performance.now();
  const { written, dropped } = recorder.stats();
  console.log(
    [
      `batchSize=${String(batchSize).padStart(4)}`,
      `rows=${count}`,
      `written=${written}`,
      `dropped=${dropped}`,
      `${Math.round((written / (done - started)) * 1000).toLocaleString('en-US')} rows/s`,
      `record() ${(((recorded - started) * 1000) / count).toFixed(2)} µs/row on the caller`,
    ].join('  '),
  );
}

console.log(`@pgw/telemetry-pg throughput (${rows} rows of ~1.3 KB, schema ${schema})`);
try {
  await run(1, Math.min(rows, 2_000));
  await run(100, rows);
  await run(500, rows);
} finally {
  const admin = new pg.Client({ connectionString: dsn });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}
