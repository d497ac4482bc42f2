/**
 * Benchmark 1: non-streaming chat throughput at several concurrencies, raw undici vs the governed
 * client (memory, Redis, SQLite telemetry) vs the two peer SDKs; plus the latency each adds at concurrency 1.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SqliteRecorder } from '@pgw/telemetry-sqlite';
import { aiSdkCaller, CONNECTIONS, gatewayCaller, openAiSdkCaller, rawUndiciCaller, type Caller } from './callers.js';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, median, percentile, ratio, runConcurrent, type Contender } from './harness.js';
import type { MockProcess } from './mock-process.js';
import { SOURCES } from './mock-script.js';
import { deleteScopeKeys } from './redis-scope.js';

export const CHAT_CONTENDERS = {
  raw: 'raw undici',
  memory: 'gateway (memory)',
  redis: 'gateway (redis)',
  sqlite: 'gateway (memory + sqlite telemetry)',
  openai: 'openai SDK',
  aiSdk: 'AI SDK',
} as const;

export interface ChatBenchOptions {
  mock: MockProcess;
  redisUrl: string;
  concurrencies: readonly number[];
  rounds: number;
  /** Calls per contender per round at a concurrency. */
  callsPerRound: (concurrency: number) => number;
}

export interface ChatRow {
  name: string;
  /** Median calls/s over the measured rounds. */
  callsPerSecond: number;
  ratioVsRaw: number;
  rates: number[];
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
  levels: ChatLevel[];
}

export async function runChatBench(options: ChatBenchOptions): Promise<ChatBenchResult> {
  const baseUrl = options.mock.baseUrl(SOURCES.chat);
  const redisScope = uniqueScope('BENCH_CHAT');
  const sqliteDir = await mkdtemp(path.join(os.tmpdir(), 'pgw-bench-chat-'));
  const callers: Caller[] = [];
  try {
    const memorySettings = () => benchSettings({ scope: uniqueScope(), baseUrl, backend: 'memory' });
    const redisSettings = benchSettings({ scope: redisScope, baseUrl, backend: 'redis', redisUrl: options.redisUrl });
    callers.push(rawUndiciCaller(CHAT_CONTENDERS.raw, baseUrl, CONNECTIONS));
    callers.push(await gatewayCaller(CHAT_CONTENDERS.memory, memorySettings()));
    callers.push(await gatewayCaller(CHAT_CONTENDERS.redis, redisSettings));
    const recorder = await SqliteRecorder.open({ path: path.join(sqliteDir, 'chat.sqlite') });
    callers.push(await gatewayCaller(CHAT_CONTENDERS.sqlite, memorySettings(), { ownedRecorder: recorder }));
    callers.push(openAiSdkCaller(CHAT_CONTENDERS.openai, baseUrl, CONNECTIONS));
    callers.push(aiSdkCaller(CHAT_CONTENDERS.aiSdk, baseUrl, CONNECTIONS));

    const levels: ChatLevel[] = [];
    for (const concurrency of options.concurrencies) {
      levels.push(await runLevel(callers, concurrency, options));
    }
    return { connections: CONNECTIONS, levels };
  } finally {
    for (const caller of callers) await caller.close();
    await deleteScopeKeys(options.redisUrl, redisScope);
    await rm(sqliteDir, { recursive: true, force: true });
  }
}

async function runLevel(callers: readonly Caller[], concurrency: number, options: ChatBenchOptions): Promise<ChatLevel> {
  const calls = options.callsPerRound(concurrency);
  const latencies = new Map<string, number[]>(callers.map((c) => [c.name, []]));
  const contenders: Contender[] = callers.map((caller) => ({
    name: caller.name,
    round: ({ warmUp }) =>
      runConcurrent(calls, concurrency, () => caller.call(), concurrency === 1 && !warmUp ? latencies.get(caller.name) : undefined),
  }));
  const results = await interleave(contenders, { rounds: options.rounds, between: () => options.mock.reset() });
  const raw = results.find((r) => r.name === CHAT_CONTENDERS.raw)!;
  const rawP50 = median(latencies.get(raw.name)!);
  const rows = results.map((result): ChatRow => {
    const own = latencies.get(result.name)!;
    const row: ChatRow = { name: result.name, callsPerSecond: result.median, ratioVsRaw: ratio(result.median, raw.median), rates: result.rates };
    if (concurrency !== 1) return row;
    const p50Ms = median(own);
    return { ...row, p50Ms, p99Ms: percentile(own, 99), addedP50Ms: p50Ms - rawP50 };
  });
  return { concurrency, callsPerRound: calls, rows };
}
