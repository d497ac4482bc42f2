/** The telemetry stores under test: a fresh SQLite file and a fresh Postgres schema, removed afterwards. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RecorderQueueOptions, TelemetryRecorder } from '@pgw/core';
import { PgRecorder } from '@pgw/telemetry-pg';
import { SqliteRecorder } from '@pgw/telemetry-sqlite';
import pg from 'pg';

export const DEFAULT_PG_DSN = 'postgres://postgres@127.0.0.1:5432/test';

export type StoreKind = 'sqlite' | 'postgres';

export interface TelemetryStores {
  /** Opens one more recorder on the store (each on its own SQLite file / its own table). */
  open(kind: StoreKind, name: string, queue?: RecorderQueueOptions): Promise<TelemetryRecorder>;
  /** Deletes the SQLite directory and drops the Postgres schema. */
  dispose(): Promise<void>;
}

export async function createTelemetryStores(pgDsn: string): Promise<TelemetryStores> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgw-bench-telemetry-'));
  const schema = `pgw_bench_${randomBytes(4).toString('hex')}`;
  const warn = (message: string) => console.warn(`[bench telemetry] ${message}`);
  let usedPg = false;
  return {
    async open(kind, name, queue = {}) {
      if (kind === 'sqlite') return SqliteRecorder.open({ ...queue, warn, path: path.join(dir, `${name}.sqlite`) });
      usedPg = true;
      return PgRecorder.open({ ...queue, warn, dsn: pgDsn, schema, table: name });
    },
    async dispose() {
      await rm(dir, { recursive: true, force: true });
      if (!usedPg) return;
      const client = new pg.Client({ connectionString: pgDsn });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
