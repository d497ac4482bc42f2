/** The key store contract on the shared PostgreSQL (PGW_TEST_PG_DSN), a schema of its own per place, dropped after. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { keyStoreContract } from '@pgw/testkit';
import { PgKeyStore } from '../src/index.js';

const DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';

keyStoreContract('PostgreSQL', async () => {
  const schema = `pgw_keys_test_${randomBytes(6).toString('hex')}`;
  return {
    // A long backstop: the contract's change must be heard through NOTIFY.
    open: () => PgKeyStore.open({ dsn: DSN, schema, backstopMs: 600_000 }),
    async close() {
      const client = new pg.Client({ connectionString: DSN });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
});
