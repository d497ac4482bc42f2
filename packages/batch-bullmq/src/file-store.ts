/** The files of the server's batches (`/v1/files`) in PostgreSQL, each kept for its tenant: another tenant's are not found. */
import type { BatchFileStore, StoredFile } from '@pgw/core';
import type pg from 'pg';
import { createTables, tableNames, type TableNames } from './pg-tables.js';

export interface PgFileStoreOptions {
  /** The pool the store queries; the caller's to end. */
  pool: pg.Pool;
  /** Schema of the table; default: the connection's `search_path`. */
  schema?: string;
}

export class PgBatchFileStore implements BatchFileStore {
  readonly #pool: pg.Pool;
  readonly #schema: string | undefined;
  readonly #table: TableNames;
  #ready: Promise<void> | undefined;

  constructor(options: PgFileStoreOptions) {
    this.#table = tableNames(options.schema, 'PgBatchFileStore');
    this.#pool = options.pool;
    this.#schema = options.schema;
  }

  #tables(): Promise<void> {
    this.#ready ??= createTables(this.#pool, this.#schema, [
      `CREATE TABLE IF NOT EXISTS ${this.#table('files')} (
        id text PRIMARY KEY, tenant_id text NOT NULL, purpose text NOT NULL, filename text NOT NULL, bytes integer NOT NULL,
        created_at bigint NOT NULL, content bytea NOT NULL)`,
    ]);
    return this.#ready;
  }

  async putFile(file: StoredFile, content: Uint8Array): Promise<void> {
    await this.#tables();
    await this.#pool.query(`INSERT INTO ${this.#table('files')} (id, tenant_id, purpose, filename, bytes, created_at, content) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      file.id,
      file.tenantId,
      file.purpose,
      file.filename,
      file.bytes,
      file.createdAt,
      Buffer.from(content.buffer, content.byteOffset, content.byteLength),
    ]);
  }

  async file(tenantId: string, id: string): Promise<StoredFile | undefined> {
    await this.#tables();
    const { rows } = await this.#pool.query<{ purpose: string; filename: string; bytes: number; created_at: string }>(
      `SELECT purpose, filename, bytes, created_at FROM ${this.#table('files')} WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { id, tenantId, purpose: row.purpose, filename: row.filename, bytes: row.bytes, createdAt: Number(row.created_at) };
  }

  async fileContent(tenantId: string, id: string): Promise<Uint8Array | undefined> {
    await this.#tables();
    const { rows } = await this.#pool.query<{ content: Buffer }>(`SELECT content FROM ${this.#table('files')} WHERE id = $1 AND tenant_id = $2`, [id, tenantId]);
    return rows[0]?.content;
  }
}
