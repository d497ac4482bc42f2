/** A PostgreSQL schema of a suite's own, so parallel suites never share a table, dropped after it. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DSN = process.env.PGW_TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';

export function uniqueSchema(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DSN });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
