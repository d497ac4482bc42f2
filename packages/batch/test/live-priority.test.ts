/**
 * A batch saturating its scope leaves live traffic its room: while runBatch keeps far more items
 * waiting than the scope's concurrency holds, an interactive call of the same scope waits at most one
 * slot turnover (here it waits none: batch calls hold at most the scope's batch share of the slots).
 */
import { expect, it } from 'vitest';
import { runBatch, SqliteBatchEngine } from '../src/index.js';
import { chatClient, chatLines, mockSource, useMock, useTempDirs } from './helpers.js';

const fixture = useMock();
const tempDir = useTempDirs();
const LATENCY_MS = 300;
const SLOTS = 4;

it('an interactive call of a scope a batch saturates waits at most one slot turnover', { timeout: 60_000 }, async () => {
  const source = mockSource(fixture.mock, 'saturated', { latencyMs: LATENCY_MS });
  const client = await chatClient(fixture.mock, source, { GLOBAL__MAX_CONCURRENCY: String(SLOTS), QUOTA_FULL: 'wait' });
  const engine = new SqliteBatchEngine({ dir: tempDir() });
  const controller = new AbortController();
  try {
    // 32 batch items want a slot; the scope has 4, of which the batch class may hold 3 (BATCH_SHARE 0.8).
    const batch = runBatch(client, chatLines(200), { engine, job: 'saturating', concurrency: 32, signal: controller.signal });
    while (fixture.mock.counters(source).inflight < SLOTS - 1) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    const live = await client.chat([{ role: 'user', content: 'live question' }]);
    const elapsedMs = performance.now() - started;
    expect(live.content).toBeTruthy();
    // Its own call plus at most one turnover of a slot, with margin; queued behind the batch's 29
    // waiters it would take (29 / 4 slots) × 300 ms ≈ 2.2 s more.
    expect(elapsedMs).toBeLessThan(2 * LATENCY_MS + 400);
    expect(fixture.mock.counters(source).inflight).toBeLessThanOrEqual(SLOTS);
    controller.abort();
    expect(await batch).toMatchObject({ status: 'paused', pauseReason: 'signal' });
  } finally {
    await Promise.all([engine.close(), client.close()]);
  }
});
