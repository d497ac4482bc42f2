/**
 * Telemetry rows/s of the SQLite store with batching (docs/architecture.md#performance).
 * Run: npx tsx --conditions=@pgw/source bench/throughput.ts [rows=50000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureRecorderThroughput } from '@pgw/testkit';
import { SqliteRecorder } from '../src/index.js';

const rows = Number(process.argv[2] ?? 50_000);
const dir = mkdtempSync(join(tmpdir(), 'pgw-bench-'));

console.log(`@pgw/telemetry-sqlite throughput (${rows} rows of ~1.3 KB, WAL, synchronous=NORMAL)`);
try {
  await measureRecorderThroughput(
    ({ batchSize, rows: count }) =>
      SqliteRecorder.open({ path: join(dir, `telemetry-${batchSize}.sqlite`), batchSize, maxQueue: count }),
    [
      { batchSize: 1, rows: Math.min(rows, 5_000) },
      { batchSize: 100, rows },
      { batchSize: 500, rows },
    ],
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
