/**
 * Telemetry rows/s of the Postgres store with batching (docs/architecture.md#performance), in a scratch schema dropped afterwards.
 * Run: PGW_TEST_PG_DSN=postgres://… npx tsx --conditions=@pgw/source bench/throughput.ts [rows=50000]
 */
import pg from 'pg';
import { measureRecorderThroughput } from '@pgw/testkit';
import { PgRecorder } from '../src/index.js';

const dsn = process.env.PGW_TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.argv[2] ?? 50_000);
const schema = `pgw_bench_${Date.now().toString(36)}`;

console.log(`@pgw/telemetry-pg throughput (${rows} rows of ~1.3 KB, schema ${schema})`);
try {
  await measureRecorderThroughput(
    ({ batchSize, rows: count }) => PgRecorder.open({ dsn, schema, table: `calls_${batchSize}`, batchSize, maxQueue: count }),
    [
      { batchSize: 1, rows: Math.min(rows, 2_000) },
      { batchSize: 100, rows },
      { batchSize: 500, rows },
    ],
  );
} finally {
  const admin = new pg.Client({ connectionString: dsn });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}
