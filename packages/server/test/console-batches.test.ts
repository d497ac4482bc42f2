/** The console's batches panel: counts from the store, a rate over the last minute read at refreshes, the time left at it. */
import { describe, expect, it } from 'vitest';
import type { JobProgress } from '@pgw/core';
import { batchesPanel } from '../src/console/batches.js';

const job = (fields: Partial<JobProgress>): JobProgress => ({
  job: 'batch_1',
  tenantId: 'acme',
  status: 'running',
  total: 1000,
  done: 0,
  failed: 0,
  inFlight: 8,
  costUsd: 0,
  meta: {},
  ...fields,
});

function harness(jobs: JobProgress[]) {
  let now = 1_000_000;
  const panel = batchesPanel(async (limit) => jobs.slice(0, limit), () => now);
  return {
    set: (next: JobProgress) => (jobs[0] = next),
    advance: (ms: number) => (now += ms),
    rows: async () => (await panel.read()).rows,
  };
}

describe('the batches panel', () => {
  it('shows the rate between refreshes and the time left at it, once it has two readings', async () => {
    const h = harness([job({ done: 100 })]);
    expect((await h.rows())[0]!.slice(7, 9)).toEqual(['–', '…']);
    h.advance(10_000);
    h.set(job({ done: 280, failed: 20, costUsd: 0.5, budgetUsd: 2 }));
    const [row] = await h.rows();
    // 200 items in 10 s: 20/s; 700 left: 35 s.
    expect(row).toEqual(['batch_1', 'acme', 'running', 280, 20, 8, 1000, '20.0/s', '35 s', '$0.5000 of $2.00']);
  });

  it('measures the rate over the last minute only: a job that was fast and is now slow shows slow', async () => {
    const h = harness([job({ done: 0 })]);
    await h.rows();
    h.advance(30_000);
    h.set(job({ done: 600 }));
    await h.rows();
    h.advance(45_000);
    h.set(job({ done: 630 }));
    // The first reading (75 s ago) has left the window: 30 items in 45 s.
    expect((await h.rows())[0]![7]).toBe('0.7/s');
  });

  it('shows why a job is paused, and no rate or time left for a job that is not running', async () => {
    const h = harness([job({ status: 'paused', pauseReason: 'budget', done: 10, tenantId: '' })]);
    await h.rows();
    h.advance(5_000);
    const [row] = await h.rows();
    expect(row!.slice(0, 3)).toEqual(['batch_1', '(none)', 'paused (budget)']);
    expect(row!.slice(7, 9)).toEqual(['–', '–']);
  });
});
