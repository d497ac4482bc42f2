/**
 * A batch saturating its scope leaves live traffic its room: while runBatch keeps far more items
 * waiting than the scope's concurrency holds, an interactive call of the same scope waits at most one
 * slot turnover (here it waits none: batch calls hold at most the scope's batch share of the slots).
 */
import { expect, it } from 'vitest';
import type { GatewaySubscriber } from '@pgw/client';
import { runBatch, SqliteBatchEngine } from '../src/index.js';
import { chatClient, chatLines, mockSource, useMock, useTempDirs } from './helpers.js';

const fixture = useMock();
const tempDir = useTempDirs();
const LATENCY_MS = 300;
const SLOTS = 4;

it('an interactive call of a scope a batch saturates waits at most one slot turnover', { timeout: 60_000 }, async () => {
  // The order calls were admitted in, pinned by their own events: counted, not timed.
  const admitted: string[] = [];
  const order: GatewaySubscriber = { onAttemptStart: (event) => void admitted.push(event.call.priority ?? 'interactive') };
  const source = mockSource(fixture.mock, 'saturated', { latencyMs: LATENCY_MS });
  const client = await chatClient(fixture.mock, source, { GLOBAL__MAX_CONCURRENCY: String(SLOTS), QUOTA_FULL: 'wait' }, [order]);
  const engine = new SqliteBatchEngine({ dir: tempDir() });
  const controller = new AbortController();
  try {
    // 32 batch items want a slot; the scope has 4, of which the batch class may hold 3 (BATCH_SHARE 0.8).
    const batch = runBatch(client, chatLines(200), { engine, job: 'saturating', concurrency: 32, signal: controller.signal });
    while (fixture.mock.counters(source).inflight < SLOTS - 1) await new Promise((resolve) => setTimeout(resolve, 5));
    const admittedBefore = admitted.length;
    const live = await client.chat([{ role: 'user', content: 'live question' }]);
    expect(live.content).toBeTruthy();
    // Admitted next, or after at most one slot turned over; behind the batch's 29 waiters it would be
    // about the 30th.
    expect(admitted.indexOf('interactive') - admittedBefore).toBeLessThanOrEqual(1);
    expect(admitted.slice(0, admittedBefore).every((priority) => priority === 'batch')).toBe(true);
    expect(fixture.mock.counters(source).inflight).toBeLessThanOrEqual(SLOTS);
    controller.abort();
    expect(await batch).toMatchObject({ status: 'paused', pauseReason: 'signal' });
  } finally {
    await Promise.all([engine.close(), client.close()]);
  }
});
