/**
 * Versioned, idempotent migrations of the Postgres store, run under a transaction-scoped advisory
 * lock so workers starting together do not race. A released migration is frozen: changes are new versions.
 */
import { inTransaction } from '@pgw/core/internal';
import type pg from 'pg';
import type { StoreNames } from './names.js';

interface Migration {
  version: number;
  sql: (names: StoreNames) => string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: (n) => `
      CREATE TABLE IF NOT EXISTS ${n.qualifiedTable} (
        ts timestamptz NOT NULL,
        scope text NOT NULL,
        operation text NOT NULL,
        event_kind text NOT NULL,
        call_id text NOT NULL,
        logical_call_id text NOT NULL,
        session_id text,
        parent_call_id text,
        tenant_id text,
        meta jsonb,
        source text,
        model text,
        status text NOT NULL,
        error text,
        error_type text,
        prompt_tokens integer,
        completion_tokens integer,
        reasoning_tokens integer,
        usage_source text,
        cost_usd double precision,
        latency_ms double precision,
        ttft_ms double precision,
        attempts integer,
        total_latency_ms double precision,
        reasoning_effort text,
        thinking_observation text,
        request_text text,
        response_text text
      );
      CREATE INDEX IF NOT EXISTS ${n.index('ts_idx')} ON ${n.qualifiedTable} (ts);
      CREATE INDEX IF NOT EXISTS ${n.index('logical_call_id_idx')} ON ${n.qualifiedTable} (logical_call_id);
      CREATE INDEX IF NOT EXISTS ${n.index('tenant_id_ts_idx')} ON ${n.qualifiedTable} (tenant_id, ts);
    `,
  },
  {
    // Prompt-cache hits as the upstream billed them, and what they saved.
    version: 2,
    sql: (n) => `
      ALTER TABLE ${n.qualifiedTable} ADD COLUMN IF NOT EXISTS cached_prompt_tokens integer;
      ALTER TABLE ${n.qualifiedTable} ADD COLUMN IF NOT EXISTS cache_saving_usd double precision;
    `,
  },
  { version: 3, sql: (n) => `ALTER TABLE ${n.qualifiedTable} ADD COLUMN IF NOT EXISTS tool_calls integer;` },
  // Prompt tokens written to the upstream's prompt cache (billed above the input price).
  { version: 4, sql: (n) => `ALTER TABLE ${n.qualifiedTable} ADD COLUMN IF NOT EXISTS cache_write_prompt_tokens integer;` },
  // Tenants' priority classes, and how long a call waited for admission.
  {
    version: 5,
    sql: (n) => `
      ALTER TABLE ${n.qualifiedTable} ADD COLUMN IF NOT EXISTS priority text;
      ALTER TABLE ${n.qualifiedTable} ADD COLUMN IF NOT EXISTS wait_ms double precision;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Advisory-lock class of PolyGateway ('pgw'); the key inside it is the schema name's hash. */
const LOCK_CLASS = 0x706777;

/** Brings `schema.table` to SCHEMA_VERSION in one transaction; a no-op when it is there already. */
export async function migrate(pool: pg.Pool, names: StoreNames): Promise<void> {
  await inTransaction(() => pool.connect(), async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, names.schema]);
    const schemaExists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [names.schema]);
    if (schemaExists.rowCount === 0) await client.query(`CREATE SCHEMA ${names.quotedSchema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${names.qualifiedVersions} (
         table_name text NOT NULL,
         version integer NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (table_name, version))`,
    );
    const { rows } = await client.query<{ current: number | null }>(
      `SELECT MAX(version) AS current FROM ${names.qualifiedVersions} WHERE table_name = $1`,
      [names.table],
    );
    const current = rows[0]?.current ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(`schema version ${current} of ${names.schema}.${names.table} is newer than this release of @pgw/telemetry-pg supports (${SCHEMA_VERSION})`);
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql(names));
      await client.query(`INSERT INTO ${names.qualifiedVersions} (table_name, version) VALUES ($1, $2)`, [
        names.table,
        migration.version,
      ]);
    }
  });
}
