/** The bullmq tests' names and stores, and what they leave behind removed: their job's queue keys (never a FLUSHDB) and their PostgreSQL schema. */
import { randomBytes } from 'node:crypto';
import { Queue, type ConnectionOptions } from 'bullmq';
import pg from 'pg';
import { BULLMQ_PREFIX } from '@pgw/batch-bullmq';

export const PG_DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A job id and a PostgreSQL schema of the test's own. */
export function testJobNames(label: string): { job: string; schema: string } {
  const hex = randomBytes(5).toString('hex');
  return { job: `${label}_${hex}`, schema: `batch_${label}_${hex}` };
}

export async function removeTestJob(options: { job: string; connection: ConnectionOptions; dsn: string; schema: string }): Promise<void> {
  const queue = new Queue(options.job, { connection: options.connection, prefix: BULLMQ_PREFIX });
  await queue.obliterate({ force: true });
  await queue.close();
  const client = new pg.Client({ connectionString: options.dsn });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${options.schema}" CASCADE`);
  await client.end();
}
