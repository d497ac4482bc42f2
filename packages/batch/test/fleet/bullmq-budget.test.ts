/**
 * The bullmq engine's job budget across workers: two engines (two workers' connections) drive one
 * job on the shared Redis and PostgreSQL (a schema of this test's own); the budget, reserved and
 * settled in PostgreSQL, pauses the job partway for both and is never exceeded; a higher budget
 * resumes it on both to completion, each custom_id once. The queue's keys are removed when done.
 */
import { afterAll, expect, it } from 'vitest';
import { parseBatchInput, resumeBatch } from '../../src/index.js';
import { BullmqBatchEngine } from '@pgw/batch-bullmq';
import { PG_DSN, removeTestJob, testJobNames } from './bullmq-cleanup.js';
import { chatClient, chatLines, mockSource, useMock } from '../helpers.js';

const fixture = useMock();
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const { job, schema } = testJobNames('budget');
const ITEMS = 12;
const BUDGET_USD = 0.08;

afterAll(() => removeTestJob({ job, connection: { url: REDIS_URL }, dsn: PG_DSN, schema }));

it('two workers pause at the job budget without exceeding it, then finish under a higher one, each custom_id once', { timeout: 60_000 }, async () => {
  const source = mockSource(fixture.mock, 'budget', { usage: { prompt_tokens: 5, completion_tokens: 10 }, latencyMs: 20 });
  // 1000 USD per million tokens each way: an item bills 0.015 USD; its worst case (max_tokens 16) is more.
  // One client per worker, counting its calls, so the test sees both workers take items.
  const calls = [0, 0];
  const pricing = { 'SOURCE:PRICING': JSON.stringify({ inputPerMTok: 1000, outputPerMTok: 1000 }) };
  const clients = await Promise.all([0, 1].map((index) => chatClient(fixture.mock, source, pricing, [{ onCallStart: () => void (calls[index] = calls[index]! + 1) }])));
  const workers = [0, 1].map(() => new BullmqBatchEngine({ redisUrl: REDIS_URL, dsn: PG_DSN, schema, pollMs: 20 }));
  try {
    await workers[0]!.open({ id: job, tenantId: 'acme', budgetUsd: BUDGET_USD }, parseBatchInput(chatLines(ITEMS)));
    const paused = await Promise.all(workers.map((engine, index) => resumeBatch(clients[index]!, { engine, job, concurrency: 2 })));
    for (const progress of paused) expect(progress).toMatchObject({ status: 'paused', pauseReason: 'budget', failed: 0 });
    const books = (await workers[0]!.progress(job))!;
    expect(books).toMatchObject({ status: 'paused', failed: 0 });
    expect(books.done).toBeGreaterThan(0);
    expect(books.done).toBeLessThan(ITEMS);
    expect(books.costUsd).toBeLessThanOrEqual(BUDGET_USD);
    expect(books.costUsd).toBeCloseTo(books.done * 0.015, 9);
    expect(fixture.mock.counters(source).chat).toBe(books.done);

    const resumed = await Promise.all(workers.map((engine, index) => resumeBatch(clients[index]!, { engine, job, concurrency: 2, budgetUsd: 1 })));
    expect(resumed.map((progress) => progress.status)).toEqual(['completed', 'completed']);
    const final = (await workers[1]!.progress(job))!;
    expect(final).toMatchObject({ status: 'completed', done: ITEMS, failed: 0 });
    expect(final.costUsd).toBeCloseTo(ITEMS * 0.015, 9);
    const ids = (await workers[1]!.results(job)).map((result) => result.customId);
    expect(ids).toHaveLength(ITEMS);
    expect(new Set(ids).size).toBe(ITEMS);
    expect(fixture.mock.counters(source).chat).toBe(ITEMS);
    expect(calls[0]! + calls[1]!).toBe(ITEMS);
    expect(Math.min(...calls)).toBeGreaterThan(0);
  } finally {
    await Promise.all([...workers.map((engine) => engine.close()), ...clients.map((client) => client.close())]);
  }
});
