/**
 * One tiny round of every benchmark end to end (a few calls each), so the bench code cannot rot:
 * the mock child, every chat contender, streams, a Redis worker process, both telemetry stores and
 * the memory child, then the report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_CONTENDERS, runChatBench } from '../src/bench-chat.js';
import { runGovernanceBench } from '../src/bench-governance.js';
import { runMemoryBench } from '../src/bench-memory.js';
import { runStreamBench } from '../src/bench-stream.js';
import { runTelemetryBench } from '../src/bench-telemetry.js';
import { MockProcess } from '../src/mock-process.js';
import { DEFAULT_REDIS_URL } from '../src/redis-scope.js';
import { evaluateTargets, renderMarkdown, type BenchResults } from '../src/report.js';
import { DEFAULT_PG_DSN } from '../src/telemetry-stores.js';

const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const pgDsn = process.env.PGW_TEST_PG_DSN ?? DEFAULT_PG_DSN;

describe('benchmarks, one tiny round each', () => {
  let mock: MockProcess;
  const results: BenchResults = {};

  beforeAll(async () => {
    mock = await MockProcess.start();
  });

  afterAll(async () => {
    await mock?.close();
  });

  it('chat: every contender gets the mock’s answer and a ratio against raw undici', async () => {
    results.chat = await runChatBench({ mock, redisUrl, concurrencies: [1, 2], rounds: 1, callsPerRound: () => 3 });
    const [one, two] = results.chat.levels;
    expect(one!.rows.map((r) => r.name)).toEqual(Object.values(CHAT_CONTENDERS));
    expect(one!.rows[0]!.ratioVsRaw).toBe(1);
    for (const row of one!.rows) {
      expect(row.callsPerSecond).toBeGreaterThan(0);
      expect(row.p50Ms).toBeGreaterThan(0);
    }
    expect(two!.rows.every((r) => r.p50Ms === undefined && r.ratioVsRaw > 0)).toBe(true);
  });

  it('stream: both readers assemble the 200-token answer', async () => {
    results.stream = await runStreamBench({ mock, streams: 4, rounds: 1 });
    expect(results.stream.rows).toHaveLength(2);
    expect(results.stream.rows.every((r) => r.streamsPerSecond > 0)).toBe(true);
  });

  it('governance: a Redis worker process settles, and the books balance', async () => {
    results.governance = await runGovernanceBench({ redisUrl, fleets: [1], admissionsPerWorker: 20, inFlightPerWorker: 2 });
    const [fleet] = results.governance.fleets;
    expect(fleet!.check).toMatchObject({ inflight: 0, admitted: 20, rpmUsed: 20, pass: true });
    expect(fleet!.check.tpmUsed).toBe(fleet!.check.settledSum);
  });

  it('telemetry: both stores write every row', async () => {
    results.telemetry = await runTelemetryBench({ mock, pgDsn, capacityRows: 50, concurrency: 2, callsPerRound: 4, rounds: 1 });
    expect(results.telemetry.capacity.map((c) => [c.store, c.written, c.dropped])).toEqual([
      ['sqlite', 50, 0],
      ['postgres', 50, 0],
    ]);
    const withStores = results.telemetry.duringCalls.filter((r) => r.store);
    expect(withStores.map((r) => [r.store, r.written, r.dropped])).toEqual([
      ['sqlite', 8, 0],
      ['postgres', 8, 0],
    ]);
  });

  it('memory: calls held open by the mock are all aborted and the limiter returns to 0', async () => {
    results.memory = await runMemoryBench({ mock, calls: 20, connectionCounts: [4], settleTimeoutMs: 10_000 });
    const [run] = results.memory;
    expect(run).toMatchObject({ admitted: 20, onTheWire: 4, pass: true });
    expect(run!.afterAbort).toMatchObject({ aborted: 20, inflightAfter: 0, signalListenersAfter: 0 });
  });

  it('report: tables for every benchmark and a verdict for every target', () => {
    const targets = evaluateTargets(results);
    expect(targets.length).toBeGreaterThanOrEqual(2 * 3 + 1 + 2 + 1);
    const markdown = renderMarkdown(
      { date: 'd', mode: 'quick', machine: 'm', loadStart: 'l', loadEnd: 'l', mock: 'child', durationS: 1 },
      results,
      targets,
      {},
      [],
    );
    for (const title of ['1. Chat', '2. Streaming', '3. Redis governance', '4. Telemetry', '5. Memory', 'Targets']) {
      expect(markdown).toContain(title);
    }
  });
});
