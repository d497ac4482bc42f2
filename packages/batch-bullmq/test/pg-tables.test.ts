/**
 * The fleet engine's tables on a real PostgreSQL: workers that start together create them once (the
 * advisory lock orders them), and a schema that is not an SQL identifier is refused naming the option.
 * The engine's store contract and its runs under the runner are @pgw/batch's tests (test/fleet/).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { BullmqBatchEngine, PgBatchFileStore } from '../src/index.js';

const DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const schema = `batch_tables_${randomBytes(5).toString('hex')}`;
const pool = new pg.Pool({ connectionString: DSN, max: 8 });

afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

describe('the fleet engine tables', () => {
  it('are created once when eight stores start together, and every store then reads and writes them', async () => {
    const stores = Array.from({ length: 8 }, () => new PgBatchFileStore({ pool, schema }));
    const file = (index: number) => ({ id: `file_${index}`, tenantId: 't', purpose: 'batch', filename: `${index}.jsonl`, bytes: 1, createdAt: 1 });
    await Promise.all(stores.map((store, index) => store.putFile(file(index), Buffer.from(String(index)))));
    const { rows } = await pool.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema]);
    expect(rows.map((row) => row.table_name)).toContain('pgw_batch_files');
    for (const [index, store] of stores.entries()) expect(Buffer.from((await store.fileContent('t', `file_${index}`))!).toString()).toBe(String(index));
  });

  it('refuse a schema that is not an SQL identifier, naming the option', () => {
    expect(() => new BullmqBatchEngine({ redisUrl: REDIS_URL, dsn: DSN, schema: 'x"; DROP TABLE y; --' })).toThrow(/^BullmqBatchEngine\(schema\) must be an SQL identifier/);
  });
});
