/**
 * Benchmark 1: non-streaming chat throughput at several concurrencies, raw undici vs the governed
 * client (memory, Redis, SQLite telemetry) vs the two peer SDKs; plus the latency each adds at concurrency 1. The
 * provider model called alone (no governance) splits the governed call's cost into transport and governance.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { aiSdkBridgeCaller, aiSdkCaller, CONNECTIONS, gatewayCaller, modelCaller, openAiSdkCaller, rawUndiciCaller, type Caller } from './callers.js';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, median, percentile, ratio, runConcurrent, type Contender } from './harness.js';
import { deleteScopeKeys, redisScriptUsec } from './redis-scope.js';
import { createTelemetryStores } from './telemetry-stores.js';
import { ZERO_ROUTES, type ZeroUpstream } from './zero-upstream.js';

export const CHAT_CONTENDERS = {
  raw: 'raw undici',
  model: 'provider model alone (no governance)',
  memory: 'gateway (memory)',
  redis: 'gateway (redis)',
  sqlite: 'gateway (memory + sqlite telemetry)',
  postgres: 'gateway (memory + postgres telemetry)',
  openai: 'openai SDK',
  aiSdk: 'AI SDK',
  aiSdkBridge: 'AI SDK generateText over toLanguageModel (memory)',
} as const;

export interface ChatBenchOptions {
  upstream: ZeroUpstream;
  redisUrl: string;
  pgDsn: string;
  concurrencies: readonly number[];
  rounds: number;
  /** Calls per contender per round at a concurrency (at least; concurrency 1 also runs for ≥ minRoundMs). */
  callsPerRound: (concurrency: number) => number;
  /** The shortest concurrency-1 round. */
  minRoundMs: number;
}

export interface ChatRow {
  name: string;
  /** Median calls/s over the measured rounds. */
  callsPerSecond: number;
  ratioVsRaw: number;
  rates: number[];
  /** Median CPU µs of the client process per call, and each round's figure. */
  cpuUsPerCall: number;
  cpuUs: number[];
  /** p99 of this thread's event-loop delay (ms) in each round: what a call in flight waits behind, e.g. a telemetry write. */
  loopDelayP99Ms: number[];
  /** Telemetry contenders: rows written and dropped after the last round's flush. */
  written?: number;
  dropped?: number;
  /** The Redis contender: the Redis server's CPU µs per call in each round (its scripts' `INFO commandstats` usec). */
  redisUs?: number[];
  /** Concurrency 1 only: median per-call latency and what it adds over raw undici's. */
  p50Ms?: number;
  p99Ms?: number;
  addedP50Ms?: number;
}

export interface ChatLevel {
  concurrency: number;
  callsPerRound: number;
  rows: ChatRow[];
}

export interface ChatBenchResult {
  connections: number;
  rounds: number;
  minRoundMs: number;
  levels: ChatLevel[];
}

export async function runChatBench(options: ChatBenchOptions): Promise<ChatBenchResult> {
  const baseUrl = options.upstream.baseUrl(ZERO_ROUTES.chat);
  const redisScope = uniqueScope('BENCH_CHAT');
  const stores = await createTelemetryStores(options.pgDsn);
  const callers: Caller[] = [];
  try {
    const memorySettings = () => benchSettings({ scope: uniqueScope(), baseUrl, backend: 'memory' });
    const redisSettings = benchSettings({ scope: redisScope, baseUrl, backend: 'redis', redisUrl: options.redisUrl });
    callers.push(rawUndiciCaller(CHAT_CONTENDERS.raw, baseUrl, CONNECTIONS));
    callers.push(modelCaller(CHAT_CONTENDERS.model, baseUrl, CONNECTIONS));
    callers.push(await gatewayCaller(CHAT_CONTENDERS.memory, memorySettings()));
    callers.push(await gatewayCaller(CHAT_CONTENDERS.redis, redisSettings));
    // A queue that holds a whole round: the flush at the end of each round is inside its timing.
    const queue = { maxQueue: 200_000, flushTimeoutMs: 120_000 };
    callers.push(await gatewayCaller(CHAT_CONTENDERS.sqlite, memorySettings(), { ownedRecorder: await stores.open('sqlite', 'chat', queue) }));
    callers.push(await gatewayCaller(CHAT_CONTENDERS.postgres, memorySettings(), { ownedRecorder: await stores.open('postgres', 'chat', queue) }));
    callers.push(openAiSdkCaller(CHAT_CONTENDERS.openai, baseUrl, CONNECTIONS));
    callers.push(aiSdkCaller(CHAT_CONTENDERS.aiSdk, baseUrl, CONNECTIONS));
    callers.push(await aiSdkBridgeCaller(CHAT_CONTENDERS.aiSdkBridge, memorySettings()));

    const levels: ChatLevel[] = [];
    for (const concurrency of options.concurrencies) {
      levels.push(await runLevel(callers, concurrency, options));
    }
    return { connections: CONNECTIONS, rounds: options.rounds, minRoundMs: options.minRoundMs, levels };
  } finally {
    for (const caller of callers) await caller.close();
    await deleteScopeKeys(options.redisUrl, redisScope);
    await stores.dispose();
  }
}

async function runLevel(callers: readonly Caller[], concurrency: number, options: ChatBenchOptions): Promise<ChatLevel> {
  const calls = options.callsPerRound(concurrency);
  const latencies = new Map<string, number[]>(callers.map((c) => [c.name, []]));
  const loopDelays = new Map<string, number[]>(callers.map((c) => [c.name, []]));
  const redisUs: number[] = [];
  const minMs = concurrency === 1 ? options.minRoundMs : 0;
  const contenders: Contender[] = callers.map((caller) => ({
    name: caller.name,
    async round({ warmUp }) {
      const loopDelay = monitorEventLoopDelay({ resolution: 1 });
      loopDelay.enable();
      const redisBefore = caller.name === CHAT_CONTENDERS.redis ? await redisScriptUsec(options.redisUrl) : undefined;
      const done = await runConcurrent(calls, concurrency, () => caller.call(), concurrency === 1 && !warmUp ? latencies.get(caller.name) : undefined, minMs);
      await caller.recorder?.flush();
      loopDelay.disable();
      if (!warmUp) loopDelays.get(caller.name)!.push(loopDelay.percentile(99) / 1e6);
      if (redisBefore !== undefined && !warmUp) redisUs.push(((await redisScriptUsec(options.redisUrl)) - redisBefore) / done);
      return done;
    },
  }));
  const results = await interleave(contenders, { rounds: options.rounds });
  const raw = results.find((r) => r.name === CHAT_CONTENDERS.raw)!;
  const rawP50 = median(latencies.get(raw.name)!);
  const rows = results.map((result, i): ChatRow => {
    const own = latencies.get(result.name)!;
    const stats = callers[i]!.recorder?.stats();
    const row: ChatRow = {
      name: result.name,
      callsPerSecond: result.median,
      ratioVsRaw: ratio(result.median, raw.median),
      rates: result.rates,
      cpuUsPerCall: result.medianCpuUs,
      cpuUs: result.cpuUs,
      loopDelayP99Ms: loopDelays.get(result.name)!,
      ...(stats && { written: stats.written, dropped: stats.dropped }),
      ...(result.name === CHAT_CONTENDERS.redis && { redisUs }),
    };
    if (concurrency !== 1) return row;
    const p50Ms = median(own);
    return { ...row, p50Ms, p99Ms: percentile(own, 99), addedP50Ms: p50Ms - rawP50 };
  });
  return { concurrency, callsPerRound: calls, rows };
}
