/**
 * The one transaction helper (`inTransaction` of @pgw/core/internal) on real PostgreSQL: a client whose
 * work failed but whose ROLLBACK succeeded is healthy and goes back to the pool; a client whose backend
 * was killed mid-transaction (pg_terminate_backend) is released with the error and never handed out again,
 * and its `error` event, which arrives while the client is held, is heard rather than ending the process.
 */
import { inTransaction } from '@pgw/core/internal';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { DSN } from './support.js';

const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

function onePool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: DSN, max: 1 });
  // A pooled client's connection that breaks while idle emits here; the pool has already removed it.
  pool.on('error', () => {});
  pools.push(pool);
  return pool;
}

const backendPid = async (client: pg.ClientBase): Promise<number> => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

it('rolls back and keeps a healthy client when the work fails with an SQL error', async () => {
  const pool = onePool();
  let used = 0;
  await expect(
    inTransaction(() => pool.connect(), async (client) => {
      used = await backendPid(client);
      await client.query('CREATE TEMP TABLE rolled_back (x int)');
      await client.query('SELECT 1 / 0');
    }),
  ).rejects.toMatchObject({ code: '22012' });
  const again = await pool.connect();
  try {
    expect(await backendPid(again)).toBe(used);
    // The table of the rolled-back transaction is gone.
    expect((await again.query("SELECT to_regclass('pg_temp.rolled_back') AS t")).rows[0].t).toBeNull();
  } finally {
    again.release();
  }
});

it('discards a client whose backend is killed mid-transaction, and hands out a new connection', async () => {
  const pool = onePool();
  const admin = new pg.Client({ connectionString: DSN });
  await admin.connect();
  let killed = 0;
  try {
    await expect(
      inTransaction(() => pool.connect(), async (client) => {
        killed = await backendPid(client);
        await admin.query('SELECT pg_terminate_backend($1)', [killed]);
        await client.query('SELECT 1');
      }),
    ).rejects.toBeInstanceOf(Error);
  } finally {
    await admin.end();
  }
  expect(pool.totalCount).toBe(0);
  const fresh = await pool.connect();
  try {
    expect(await backendPid(fresh)).not.toBe(killed);
  } finally {
    fresh.release();
  }
});
