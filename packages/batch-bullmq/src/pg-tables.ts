/**
 * The PostgreSQL tables of the fleet engine (`pgw_batch_*`), in the schema of the options or the
 * connection's `search_path`; each store creates its own once, whichever worker comes first (an
 * advisory lock orders concurrent starts).
 */
import { inTransaction } from '@pgw/core/internal';
import type pg from 'pg';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export type TableNames = (name: 'jobs' | 'items' | 'results' | 'files') => string;

/** The qualified table names of `schema`; `owner` names the option in the error for a bad one. */
export function tableNames(schema: string | undefined, owner: string): TableNames {
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new TypeError(`${owner}(schema) must be an SQL identifier, got ${JSON.stringify(schema)}`);
  return (name) => (schema === undefined ? `pgw_batch_${name}` : `"${schema}".pgw_batch_${name}`);
}

/** Runs the statements that create a store's tables, in one transaction under the engine's advisory lock. */
export function createTables(pool: pg.Pool, schema: string | undefined, statements: readonly string[]): Promise<void> {
  return inTransaction(
    () => pool.connect(),
    async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('pgw_batch_schema'))");
      if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      for (const statement of statements) await client.query(statement);
    },
  );
}
