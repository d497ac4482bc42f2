/** The sqlite engine on a real file: the store contract, recovery on reopen, one live driver per job. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BATCH_FILE_NAME, BatchJobBusyError, parseBatchInput, SqliteBatchEngine } from '../src/index.js';
import { chatLines, useTempDirs } from './helpers.js';
import { batchStoreContract } from '@pgw/testkit';

const tempDir = useTempDirs();

batchStoreContract('sqlite', { open: async () => new SqliteBatchEngine({ dir: tempDir() }) });
const items = parseBatchInput(chatLines(4));
const ok = { statusCode: 200, requestId: 'r', body: { ok: true }, costUsd: 0.5 };

describe('SqliteBatchEngine', () => {
  it('reopening a job puts the items a dead driver left running back to pending, and keeps the recorded ones', async () => {
    const dir = tempDir();
    const first = new SqliteBatchEngine({ dir });
    await first.open({ id: 'j', tenantId: 't' }, items);
    const claimed = await first.claim('j', 3);
    expect(claimed.map((item) => item.customId)).toEqual(['item-0', 'item-1', 'item-2']);
    await first.record('j', 'item-0', ok, 0);
    // A second record of the same item (a late duplicate) changes nothing.
    await first.record('j', 'item-0', { ...ok, body: { ok: false } }, 0);
    expect(await first.progress('j')).toMatchObject({ done: 1, inFlight: 2, costUsd: 0.5 });
    await first.close();

    const second = new SqliteBatchEngine({ dir });
    try {
      expect(await second.open({ id: 'j', tenantId: 't' }, [])).toMatchObject({ status: 'running', total: 4, done: 1, inFlight: 0 });
      expect((await second.claim('j', 10)).map((item) => item.customId)).toEqual(['item-1', 'item-2', 'item-3']);
      expect(await second.results('j')).toMatchObject([{ customId: 'item-0', body: { ok: true } }]);
    } finally {
      await second.close();
    }
  });

  it('refuses a job whose driver is another live process', async () => {
    const dir = tempDir();
    const engine = new SqliteBatchEngine({ dir });
    try {
      await engine.open({ id: 'busy', tenantId: '' }, items);
      // The parent of this test process is alive and is not this process.
      const db = new Database(join(dir, BATCH_FILE_NAME));
      db.prepare('UPDATE jobs SET owner_pid = ? WHERE id = ?').run(process.ppid, 'busy');
      db.close();
      await expect(engine.open({ id: 'busy', tenantId: '' }, items)).rejects.toMatchObject({ job: 'busy', ownerPid: process.ppid });
      await expect(engine.open({ id: 'busy', tenantId: '' }, items)).rejects.toBeInstanceOf(BatchJobBusyError);
    } finally {
      await engine.close();
    }
  });
});
