/**
 * Telemetry rows/s of the SQLite store with batching (SPEC §16).
 * Run: npx tsx --conditions=@pgw/source bench/throughput.ts [rows=50000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TelemetryRow } from '@pgw/core';
import { SqliteRecorder } from '../src/index.js';

const rows = Number(process.argv[2] ?? 50_000);

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
  const dir = mkdtempSync(join(tmpdir(), 'pgw-bench-'));
  try {
    const recorder = await SqliteRecorder.open({ path: join(dir, 'telemetry.sqlite'), batchSize, maxQueue: count });
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`@pgw/telemetry-sqlite throughput (${rows} rows of ~1.3 KB, WAL, synchronous=NORMAL)`);
await run(1, Math.min(rows, 5_000));
await run(100, rows);
await run(500, rows);
