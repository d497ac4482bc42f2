/**
 * What every batch store keeps, whichever engine: budget reservations settled to the billed cost, a
 * result recorded twice counted once, each tenant's files and jobs apart. Run by @pgw/batch's tests on
 * the SQLite engine and on the BullMQ + PostgreSQL engine.
 */
import { randomBytes } from 'node:crypto';
import type { BatchEngine, BatchFileStore, BatchItem } from '@pgw/core';
import { afterAll, describe, expect, it } from 'vitest';

/** A store of jobs and of a server's batch files, as `@pgw/batch`'s engines are. */
type BatchStore = BatchEngine & BatchFileStore;

export interface BatchStoreContractOptions {
  /** A store for one test; empty of this contract's jobs (the ids are unique per run). */
  open(): Promise<BatchStore>;
  /** Removes what the jobs left outside the store's own files (their queues), after the suite. */
  removeJobs?(jobs: readonly string[]): Promise<void>;
}

const items: BatchItem[] = Array.from({ length: 4 }, (_, index) => ({
  customId: `item-${index}`,
  url: '/v1/chat/completions',
  body: { model: 'mock-model', messages: [{ role: 'user', content: `question ${index}` }], max_tokens: 16 },
  line: index + 1,
}));
const ok = { statusCode: 200, requestId: 'r', body: { ok: true }, costUsd: 0.5 };

export function batchStoreContract(engine: string, options: BatchStoreContractOptions): void {
  const run = randomBytes(4).toString('hex');
  const used: string[] = [];
  const jobId = (label: string) => {
    const id = `${label}_${run}`;
    used.push(id);
    return id;
  };
  afterAll(() => options.removeJobs?.(used));

  async function withStore(test: (store: BatchStore) => Promise<void>): Promise<void> {
    const store = await options.open();
    try {
      await test(store);
    } finally {
      await store.close();
    }
  }

  describe(`batch store contract: ${engine}`, () => {
    it('reserves within the budget only, and settles a reservation to the billed cost', () =>
      withStore(async (store) => {
        const job = jobId('budget');
        await store.open({ id: job, tenantId: '', budgetUsd: 1 }, items);
        expect(await store.claim(job, 2)).toHaveLength(2);
        expect(await store.reserve(job, 0.6)).toBe(true);
        expect(await store.reserve(job, 0.6)).toBe(false);
        await store.record(job, 'item-0', { ...ok, costUsd: 0.25 }, 0.6);
        expect(await store.reserve(job, 0.6)).toBe(true);
        expect(await store.reserve(job, 0.2)).toBe(false);
        await store.release(job, ['item-1'], 0.6);
        expect(await store.progress(job)).toMatchObject({ costUsd: 0.25, budgetUsd: 1, done: 1 });
        expect(await store.reserve(job, 0.75)).toBe(true);
      }));

    it('counts a result recorded twice once, keeping the first', () =>
      withStore(async (store) => {
        const job = jobId('twice');
        await store.open({ id: job, tenantId: '' }, items);
        await store.claim(job, 1);
        await store.record(job, 'item-0', ok, 0);
        await store.record(job, 'item-0', { ...ok, body: { ok: false } }, 0);
        expect(await store.progress(job)).toMatchObject({ done: 1, costUsd: 0.5 });
        expect(await store.results(job)).toMatchObject([{ customId: 'item-0', body: { ok: true } }]);
      }));

    it("keeps each tenant's files and jobs apart", () =>
      withStore(async (store) => {
        const [a, b] = [`a_${run}`, `b_${run}`];
        const fileId = `file_${run}`;
        await store.putFile({ id: fileId, tenantId: a, purpose: 'batch', filename: 'x.jsonl', bytes: 2, createdAt: 1 }, Buffer.from('{}'));
        expect(await store.file(a, fileId)).toMatchObject({ filename: 'x.jsonl', bytes: 2 });
        expect(Buffer.from((await store.fileContent(a, fileId))!).toString()).toBe('{}');
        expect(await store.file(b, fileId)).toBeUndefined();
        expect(await store.fileContent(b, fileId)).toBeUndefined();
        const [j1, j2, j3] = [jobId('j1'), jobId('j2'), jobId('j3')];
        for (const [id, tenantId] of [[j1, a], [j2, b], [j3, a]] as const) await store.open({ id, tenantId }, items);
        expect((await store.jobs(a, { limit: 10 })).map((job) => job.job)).toEqual([j3, j1]);
        expect((await store.jobs(a, { after: j3, limit: 10 })).map((job) => job.job)).toEqual([j1]);
        expect((await store.jobs(undefined, { limit: 2 })).map((job) => job.job)).toEqual([j3, j2]);
      }));
  });
}
