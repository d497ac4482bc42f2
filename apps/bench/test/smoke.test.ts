/**
 * One tiny round of every benchmark end to end (a few calls each), so the bench code cannot rot:
 * the zero-logic upstream (its spread route too) and the mock children, every chat contender, governed and raw streams, a
 * Redis worker process, both telemetry stores, the memory probe on the built dist, the sources
 * benchmark, then the report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_CONTENDERS, runChatBench } from '../src/bench-chat.js';
import { runGovernanceBench } from '../src/bench-governance.js';
import { runMemoryBench } from '../src/bench-memory.js';
import { runSourcesBench } from '../src/bench-sources.js';
import { runStreamBench, STREAM_CONTENDERS } from '../src/bench-stream.js';
import { runTelemetryBench } from '../src/bench-telemetry.js';
import { MockProcess } from '../src/mock-process.js';
import { DEFAULT_REDIS_URL } from '../src/redis-scope.js';
import { evaluateTargets, renderMarkdown, type BenchResults } from '../src/report.js';
import { DEFAULT_PG_DSN } from '../src/telemetry-stores.js';
import { ZeroUpstream } from '../src/zero-upstream.js';

const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const pgDsn = process.env.PGW_TEST_PG_DSN ?? DEFAULT_PG_DSN;

describe('benchmarks, one tiny round each', () => {
  let mock: MockProcess;
  let upstream: ZeroUpstream;
  const results: BenchResults = {};

  beforeAll(async () => {
    mock = await MockProcess.start();
    upstream = await ZeroUpstream.start();
  });

  afterAll(async () => {
    await mock?.close();
    await upstream?.close();
  });

  it('chat: every contender gets the upstream’s answer, a ratio against raw undici and a CPU figure; telemetry rows all written', async () => {
    results.chat = await runChatBench({ upstream, redisUrl, pgDsn, concurrencies: [1, 2], rounds: 1, callsPerRound: () => 3, minRoundMs: 0 });
    const [one, two] = results.chat.levels;
    expect(one!.rows.map((r) => r.name)).toEqual(Object.values(CHAT_CONTENDERS));
    expect(one!.rows[0]!.ratioVsRaw).toBe(1);
    for (const row of one!.rows) {
      expect(row.callsPerSecond).toBeGreaterThan(0);
      expect(row.cpuUsPerCall).toBeGreaterThan(0);
      expect(row.p50Ms).toBeGreaterThan(0);
    }
    expect(two!.rows.every((r) => r.p50Ms === undefined && r.ratioVsRaw > 0)).toBe(true);
    // Warm-up and measured rounds of both levels, 3 calls each, all flushed.
    const withStores = two!.rows.filter((r) => r.written !== undefined);
    expect(withStores.map((r) => [r.name, r.written, r.dropped])).toEqual([
      [CHAT_CONTENDERS.sqlite, 12, 0],
      [CHAT_CONTENDERS.postgres, 12, 0],
    ]);
  });

  it('stream: raw and governed readers assemble the 200-token answer in both shapes, with a time to first token', async () => {
    results.stream = await runStreamBench({ upstream, levels: [1, 3], shapes: ['packet', 'burst'], rounds: 1, minRoundMs: 0 });
    expect(results.stream.levels.map((l) => [l.shape, l.streams])).toEqual([
      ['packet', 1],
      ['packet', 3],
      ['burst', 1],
      ['burst', 3],
    ]);
    for (const level of results.stream.levels) {
      expect(level.rows.map((r) => r.name)).toEqual([STREAM_CONTENDERS.raw, STREAM_CONTENDERS.governed]);
      expect(level.rows.every((r) => r.tokensPerSecond > 0 && r.ttftP99Ms > 0)).toBe(true);
    }
  });

  it('the spread route answers each request after 50–150 ms, half of them after 100 ms or more', async () => {
    const url = `${upstream.baseUrl('spread')}/chat/completions`;
    const latenciesMs = await Promise.all(
      Array.from({ length: 101 }, async () => {
        const started = performance.now();
        const response = await fetch(url, { method: 'POST', body: '{}' });
        expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
        return performance.now() - started;
      }),
    );
    latenciesMs.sort((a, b) => a - b);
    expect(latenciesMs[0]).toBeGreaterThanOrEqual(49);
    expect(latenciesMs[50]).toBeGreaterThanOrEqual(99);
  });

  it('sources: governed clients with 1 and 3 sources, CPU against 1 source', async () => {
    results.sources = await runSourcesBench({ upstream, sourceCounts: [1, 3], concurrency: 2, callsPerRound: 4, rounds: 1 });
    expect(results.sources.rows.map((r) => r.sources)).toEqual([undefined, 1, 3]);
    expect(results.sources.rows[1]!.cpuVsOneSource).toBe(1);
  });

  it('governance: a Redis worker process settles, and the books balance', async () => {
    results.governance = await runGovernanceBench({ redisUrl, fleets: [1], admissionsPerWorker: 20, inFlightPerWorker: 2 });
    const [fleet] = results.governance.fleets;
    expect(fleet!.check).toMatchObject({ inflight: 0, admitted: 20, rpmUsed: 20, pass: true });
    expect(fleet!.check.tpmUsed).toBe(fleet!.check.settledSum);
  });

  it('telemetry: both stores write every row', async () => {
    results.telemetry = await runTelemetryBench({ pgDsn, capacityRows: 50 });
    expect(results.telemetry.capacity.map((c) => [c.store, c.ids, c.written, c.dropped])).toEqual([
      ['sqlite', 'time-ordered', 50, 0],
      ['sqlite', 'random v4', 50, 0],
      ['postgres', 'time-ordered', 50, 0],
      ['postgres', 'random v4', 50, 0],
    ]);
  });

  it('memory: raw and governed calls held open by the mock are all aborted and nothing is left in flight', async () => {
    results.memory = await runMemoryBench({ mock, calls: 20, connectionCounts: [4], settleTimeoutMs: 60_000 });
    expect(results.memory.map((r) => r.mode)).toEqual(['raw', 'governed']);
    for (const run of results.memory) {
      expect(run).toMatchObject({ admitted: 20, onTheWire: 4, pass: true });
      expect(run.afterAbort).toMatchObject({ aborted: 20, inflightAfter: 0, signalListenersAfter: 0 });
    }
  }, 180_000);

  it('report: tables for every benchmark and a verdict for every target', () => {
    const targets = evaluateTargets(results);
    // chat: 2 levels × 3 targets; governance 1; stream 1 (packet, 3 streams); memory 2; sources 1.
    expect(targets.length).toBeGreaterThanOrEqual(2 * 3 + 1 + 1 + 2 + 1);
    const markdown = renderMarkdown(
      { date: 'd', mode: 'quick', machine: 'm', loadStart: 'l', loadEnd: 'l', mock: 'child', upstream: 'zero', durationS: 1 },
      results,
      targets,
      {},
      [],
      'a profile summary',
    );
    for (const title of ['1. Chat', '2. Streaming', '3. Redis governance', '4. Telemetry', '5. Memory', '6. Per-call cost', 'Targets', 'a profile summary']) {
      expect(markdown).toContain(title);
    }
  });
});
