/** Test helpers: a unique schema per test file on the shared Postgres, recorders closed after each test, reading rows back. */
import pg from 'pg';
import { TELEMETRY_COLUMNS, type TelemetryRow } from '@pgw/core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { PgRecorder, type PgRecorderOptions } from '../src/index.js';

export const DSN = process.env.PGW_TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

export interface TestDatabase {
  /** Unique to the test file; dropped after its tests. */
  schema: string;
  /** An admin connection, open for the file's tests. */
  client: pg.Client;
}

/** Call at the top of a test file: hooks connect the admin client before its tests and drop the schema after. */
export function useTestDatabase(): TestDatabase {
  const db: TestDatabase = { schema: uniqueName('pgw_test'), client: new pg.Client({ connectionString: DSN }) };
  beforeAll(() => db.client.connect());
  afterAll(async () => {
    await db.client.query(`DROP SCHEMA IF EXISTS ${db.schema} CASCADE`);
    await db.client.end();
  });
  return db;
}

/** Call at the top of a test file: `openRecorder` opens in `db`'s schema (by DSN); every recorder is closed after each test. */
export function useRecorders(db: TestDatabase) {
  const open: PgRecorder[] = [];
  const closeRecorders = async (): Promise<void> => {
    await Promise.all(open.splice(0).map((recorder) => recorder.close()));
  };
  afterEach(closeRecorders);
  return {
    async openRecorder(options: Partial<PgRecorderOptions> = {}): Promise<PgRecorder> {
      const recorder = await PgRecorder.open({ dsn: DSN, schema: db.schema, ...options });
      open.push(recorder);
      return recorder;
    },
    /** Closes them now (e.g. before the test drops a schema of its own). */
    closeRecorders,
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
