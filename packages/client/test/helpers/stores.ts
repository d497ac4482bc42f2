/** The two telemetry stores the end-to-end suites write through `fromEnv`, and how a test reads their rows back. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PG_DSN } from './e2e.js';

/** Runs one read-only query on a SQLite telemetry file. */
export function readSqlite<T>(path: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/**
 * SQLite (one file per scope under `dir`) and PostgreSQL (the shared test database, `public.llm_calls`).
 * `rows(scope, columns, where?)` reads one scope's rows in write order; `where` is an extra SQL condition.
 */
export function telemetryStores(dir: string) {
  const sqlitePath = (scope: string) => join(dir, scope, 'telemetry.sqlite');
  return [
    {
      name: 'sqlite',
      sqlitePath,
      env: (scope: string) => ({ PGW_TELEMETRY_BACKEND: 'sqlite', PGW_SQLITE_PATH: sqlitePath(scope) }),
      rows: async <T>(scope: string, columns: string, where = 'TRUE'): Promise<T[]> =>
        readSqlite<T>(sqlitePath(scope), `SELECT ${columns} FROM llm_calls WHERE scope = ? AND ${where} ORDER BY ts, rowid`, scope),
    },
    {
      name: 'postgres',
      sqlitePath,
      env: (_scope: string) => ({ PGW_TELEMETRY_BACKEND: 'postgres', PGW_TELEMETRY_DSN: PG_DSN }),
      async rows<T>(scope: string, columns: string, where = 'TRUE'): Promise<T[]> {
        const client = new pg.Client({ connectionString: PG_DSN });
        await client.connect();
        try {
          const result = await client.query(`SELECT ${columns} FROM public.llm_calls WHERE scope = $1 AND ${where} ORDER BY ts`, [scope]);
          return result.rows as T[];
        } finally {
          await client.end();
        }
      },
    },
  ] as const;
}
