/** Test helpers: a unique schema per test file on the shared Postgres, and reading rows back. */
import pg from 'pg';
import { TELEMETRY_COLUMNS, type TelemetryRow } from '@pgw/core';

export const DSN = process.env.PGW_TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** An admin client for a test file: owns a unique schema, dropped on `end`. */
export async function testDatabase() {
  const schema = uniqueName('pgw_test');
  const client = new pg.Client({ connectionString: DSN });
  await client.connect();
  return {
    schema,
    client,
    async end() {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** Rows of a table; NULL comes back as an absent key, ts as epoch ms. */
export async function readRows(client: pg.Client, schema: string, table: string): Promise<TelemetryRow[]> {
  const { rows } = await client.query<Record<string, unknown>>(`SELECT * FROM ${schema}.${table}`);
  return rows.map((record) => {
    const row: Record<string, unknown> = {};
    for (const [column, field] of TELEMETRY_COLUMNS) {
      const value = record[column];
      if (value === null || value === undefined) continue;
      row[field] = value instanceof Date ? value.getTime() : value;
    }
    return row as unknown as TelemetryRow;
  });
}

export async function countRows(client: pg.Client, schema: string, table: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${schema}.${table}`);
  return rows[0]!.n;
}

let serial = 0;
export function row(overrides: Partial<TelemetryRow> = {}): TelemetryRow {
  serial += 1;
  return {
    ts: 1_700_000_000_000 + serial,
    scope: 'LLM',
    operation: 'chat',
    eventKind: 'attempt',
    callId: `call-${serial}`,
    logicalCallId: `logical-${serial}`,
    status: 'ok',
    ...overrides,
  };
}
