/**
 * One SQL transaction on a pooled client, shared by the PostgreSQL adapters (@pgw/telemetry-pg,
 * @pgw/batch-bullmq). Written against the few methods of a `pg` pool it uses, so core imports no driver.
 */

/** What `inTransaction` uses of a pooled client (a `pg.PoolClient` is one). */
export interface PooledSqlClient {
  query(text: string): Promise<unknown>;
  /** A checked-out client reports a broken connection here; unheard, the event would end the process. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  /** Back to the pool; with an error, the pool destroys the client instead of keeping it. */
  release(error?: Error): void;
}

/**
 * Runs `work` between BEGIN and COMMIT on a client `connect` takes from a pool (`() => pool.connect()`:
 * a function, so the client's type is inferred past `pg.Pool`'s overloads); rolls back when it throws. The
 * one rule for a failed client: a client whose connection broke while it was held (its `error`
 * event) or whose ROLLBACK fails is released with that error, so the pool discards it; a client whose
 * ROLLBACK succeeded is healthy and goes back to the pool. `work`'s own error is what is thrown.
 */
export async function inTransaction<Client extends PooledSqlClient, T>(connect: () => Promise<Client>, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
