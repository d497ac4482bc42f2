/** The sqlite engine on a real file: recovery on reopen, one live driver per job, budget books, files per tenant. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BATCH_FILE_NAME, BatchJobBusyError, parseBatchInput, SqliteBatchEngine } from '../src/index.js';
import { chatLines, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
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

  it('reserves within the budget only, and settles a reservation to the billed cost', async () => {
    const engine = new SqliteBatchEngine({ dir: tempDir() });
    try {
      await engine.open({ id: 'b', tenantId: '', budgetUsd: 1 }, items);
      await engine.claim('b', 2);
      expect(await engine.reserve('b', 0.6)).toBe(true);
      expect(await engine.reserve('b', 0.6)).toBe(false);
      await engine.record('b', 'item-0', { ...ok, costUsd: 0.25 }, 0.6);
      expect(await engine.reserve('b', 0.6)).toBe(true);
      expect(await engine.reserve('b', 0.2)).toBe(false);
      await engine.release('b', ['item-1'], 0.6);
      expect(await engine.progress('b')).toMatchObject({ costUsd: 0.25, budgetUsd: 1, inFlight: 0 });
      expect(await engine.reserve('b', 0.75)).toBe(true);
    } finally {
      await engine.close();
    }
  });

  it("keeps each tenant's files and jobs apart", async () => {
    const engine = new SqliteBatchEngine({ dir: tempDir() });
    try {
      await engine.putFile({ id: 'file-1', tenantId: 'a', purpose: 'batch', filename: 'x.jsonl', bytes: 2, createdAt: 1 }, Buffer.from('{}'));
      expect(await engine.file('a', 'file-1')).toMatchObject({ filename: 'x.jsonl', bytes: 2 });
      expect(await engine.file('b', 'file-1')).toBeUndefined();
      expect(await engine.fileContent('b', 'file-1')).toBeUndefined();
      for (const [id, tenantId] of [['j1', 'a'], ['j2', 'b'], ['j3', 'a']] as const) await engine.open({ id, tenantId }, items);
      expect((await engine.jobs('a', { limit: 10 })).map((job) => job.job)).toEqual(['j3', 'j1']);
      expect((await engine.jobs('a', { after: 'j3', limit: 10 })).map((job) => job.job)).toEqual(['j1']);
      expect((await engine.jobs(undefined, { limit: 2 })).map((job) => job.job)).toEqual(['j3', 'j2']);
    } finally {
      await engine.close();
    }
  });
});
