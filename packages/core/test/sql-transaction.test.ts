/** The failed-client rule of `inTransaction` on a scripted client (the real-PostgreSQL cases are in @pgw/telemetry-pg's transaction.test.ts). */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { inTransaction, type PooledSqlClient } from '../src/sql-transaction.js';

/** A client whose statements fail as scripted; it remembers what it ran and how it was released. */
function scriptedClient(failing: ReadonlySet<string>) {
  const ran: string[] = [];
  const released: (Error | undefined)[] = [];
  const client = Object.assign(new EventEmitter(), {
    query: async (text: string) => {
      ran.push(text);
      if (failing.has(text)) throw new Error(`${text} failed`);
    },
    release: (error?: Error) => void released.push(error),
  }) satisfies PooledSqlClient;
  return { connect: async () => client, ran, released, client };
}

describe('inTransaction', () => {
  it('commits and releases the client to the pool', async () => {
    const { connect, ran, released } = scriptedClient(new Set());
    expect(await inTransaction(connect, async (client) => (await client.query('SELECT 1'), 'done'))).toBe('done');
    expect(ran).toEqual(['BEGIN', 'SELECT 1', 'COMMIT']);
    expect(released).toEqual([undefined]);
  });

  it('rolls back, throws the work error, and keeps a client whose ROLLBACK succeeded', async () => {
    const { connect, ran, released } = scriptedClient(new Set(['BAD']));
    await expect(inTransaction(connect, (client) => client.query('BAD'))).rejects.toThrow('BAD failed');
    expect(ran).toEqual(['BEGIN', 'BAD', 'ROLLBACK']);
    expect(released).toEqual([undefined]);
  });

  it('releases a client whose ROLLBACK fails with that error, so the pool discards it, and still throws the work error', async () => {
    const { connect, released } = scriptedClient(new Set(['BAD', 'ROLLBACK']));
    await expect(inTransaction(connect, (client) => client.query('BAD'))).rejects.toThrow('BAD failed');
    expect(released).toHaveLength(1);
    expect(released[0]).toMatchObject({ message: 'ROLLBACK failed' });
  });

  it("releases a client whose connection broke while held with the break's error, and stops listening", async () => {
    const { connect, released, client } = scriptedClient(new Set());
    const lost = new Error('terminating connection');
    await inTransaction(connect, async () => void client.emit('error', lost));
    expect(released).toEqual([lost]);
    expect(client.listenerCount('error')).toBe(0);
  });

  it('treats a failed COMMIT as a failed transaction', async () => {
    const { connect, ran, released } = scriptedClient(new Set(['COMMIT', 'ROLLBACK']));
    await expect(inTransaction(connect, async () => 1)).rejects.toThrow('COMMIT failed');
    expect(ran).toEqual(['BEGIN', 'COMMIT', 'ROLLBACK']);
    expect(released[0]).toMatchObject({ message: 'ROLLBACK failed' });
  });
});
