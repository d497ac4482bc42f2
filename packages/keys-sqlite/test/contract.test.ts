/** The key store contract on a real SQLite file, a fresh directory per place. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyStoreContract } from '@pgw/testkit';
import { SqliteKeyStore } from '../src/index.js';

keyStoreContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-keys-'));
  return {
    open: async () => new SqliteKeyStore({ dir }),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
