/**
 * Benchmark 4: telemetry. (a) what each store absorbs on its own (rows/s through the recorder's
 * queue, synthetic attempt rows); (b) governed calls with and without a recorder, interleaved: the
 * throughput ratio, the rows the recorder wrote while the calls ran, and that none were dropped.
 */
import { randomUUID } from 'node:crypto';
import type { TelemetryRecorder, TelemetryRow } from '@pgw/core';
import { gatewayCaller, type Caller } from './callers.js';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, ratio, runConcurrent, type Contender } from './harness.js';
import type { MockProcess } from './mock-process.js';
import { SOURCES } from './mock-script.js';
import { createTelemetryStores, type StoreKind } from './telemetry-stores.js';

const STORES: readonly StoreKind[] = ['sqlite', 'postgres'];
export const TELEMETRY_BASELINE = 'gateway, telemetry off';

export interface TelemetryBenchOptions {
  mock: MockProcess;
  pgDsn: string;
  /** Rows pushed in the capacity run of each store. */
  capacityRows: number;
  concurrency: number;
  callsPerRound: number;
  rounds: number;
}

export interface CapacityRow {
  store: StoreKind;
  rows: number;
  rowsPerSecond: number;
  written: number;
  dropped: number;
}

export interface DuringCallsRow {
  name: string;
  store?: StoreKind;
  callsPerSecond: number;
  ratioVsOff: number;
  /** Rows written while the measured call rounds ran, per second of those rounds. */
  rowsPerSecond?: number;
  /** After the final flush: rows written / dropped over every round (warm-up included). */
  written?: number;
  dropped?: number;
  calls: number;
  rates: number[];
}

export interface TelemetryBenchResult {
  capacity: CapacityRow[];
  concurrency: number;
  callsPerRound: number;
  duringCalls: DuringCallsRow[];
}

export async function runTelemetryBench(options: TelemetryBenchOptions): Promise<TelemetryBenchResult> {
  const stores = await createTelemetryStores(options.pgDsn);
  try {
    const capacity: CapacityRow[] = [];
    // The whole batch is queued at once, so the queue must hold it and the final flush may take a while.
    const capacityQueue = { maxQueue: options.capacityRows, flushTimeoutMs: 120_000 };
    for (const store of STORES) {
      capacity.push(await measureCapacity(store, options.capacityRows, await stores.open(store, `capacity_${store}`, capacityQueue)));
    }
    const recorders = await Promise.all(STORES.map(async (store) => ({ store, recorder: await stores.open(store, `calls_${store}`) })));
    const duringCalls = await measureDuringCalls(options, recorders);
    return { capacity, concurrency: options.concurrency, callsPerRound: options.callsPerRound, duringCalls };
  } finally {
    await stores.dispose();
  }
}

/** A realistic successful attempt row (texts capped well below the default 4096). */
function syntheticRow(i: number): TelemetryRow {
  const id = randomUUID();
  return {
    ts: Date.now(),
    scope: 'BENCH',
    operation: 'chat',
    eventKind: 'attempt',
    callId: id,
    logicalCallId: id,
    tenantId: `tenant-${i % 16}`,
    meta: { batch: i >> 10, job: 'bench' },
    source: 'mock',
    model: 'bench-model',
    status: 'ok',
    promptTokens: 42,
    completionTokens: 128,
    usageSource: 'measured',
    costUsd: 0.000_21,
    latencyMs: 812,
    attempts: 1,
    totalLatencyMs: 815,
    thinkingObservation: 'absent',
    requestText: `[{"role":"user","content":"Summarise document ${i} in three sentences."}]`,
    responseText: 'The document describes a benchmark. It measures throughput. It reports ratios, not absolute times.',
  };
}

async function measureCapacity(store: StoreKind, rows: number, recorder: TelemetryRecorder): Promise<CapacityRow> {
  try {
    const started = performance.now();
    for (let i = 0; i < rows; i++) recorder.record(syntheticRow(i));
    await recorder.flush();
    const seconds = (performance.now() - started) / 1000;
    const { written, dropped } = recorder.stats();
    return { store, rows, rowsPerSecond: written / seconds, written, dropped };
  } finally {
    await recorder.close();
  }
}

async function measureDuringCalls(
  options: TelemetryBenchOptions,
  recorders: ReadonlyArray<{ store: StoreKind; recorder: TelemetryRecorder }>,
): Promise<DuringCallsRow[]> {
  const baseUrl = options.mock.baseUrl(SOURCES.chat);
  const settings = () => benchSettings({ scope: uniqueScope(), baseUrl, backend: 'memory' });
  const callers: Array<{ caller: Caller; store?: StoreKind; recorder?: TelemetryRecorder; rowsDuringRounds: number; seconds: number }> = [];
  try {
    callers.push({ caller: await gatewayCaller(TELEMETRY_BASELINE, settings()), rowsDuringRounds: 0, seconds: 0 });
    for (const { store, recorder } of recorders) {
      const caller = await gatewayCaller(`gateway + ${store} telemetry`, settings(), { ownedRecorder: recorder });
      callers.push({ caller, store, recorder, rowsDuringRounds: 0, seconds: 0 });
    }
    const contenders: Contender[] = callers.map((entry) => ({
      name: entry.caller.name,
      async round({ warmUp }) {
        const writtenBefore = entry.recorder?.stats().written ?? 0;
        const started = performance.now();
        const calls = await runConcurrent(options.callsPerRound, options.concurrency, () => entry.caller.call());
        if (!warmUp && entry.recorder) {
          entry.rowsDuringRounds += entry.recorder.stats().written - writtenBefore;
          entry.seconds += (performance.now() - started) / 1000;
        }
        return calls;
      },
    }));
    const results = await interleave(contenders, { rounds: options.rounds, between: () => options.mock.reset() });
    const off = results[0]!;
    const rows: DuringCallsRow[] = [];
    for (const [i, result] of results.entries()) {
      const entry = callers[i]!;
      const row: DuringCallsRow = {
        name: result.name,
        callsPerSecond: result.median,
        ratioVsOff: ratio(result.median, off.median),
        calls: options.callsPerRound * (options.rounds + 1),
        rates: result.rates,
      };
      if (entry.recorder) {
        await entry.recorder.flush();
        const { written, dropped } = entry.recorder.stats();
        Object.assign(row, { store: entry.store, rowsPerSecond: entry.rowsDuringRounds / entry.seconds, written, dropped });
      }
      rows.push(row);
    }
    return rows;
  } finally {
    for (const { caller } of callers) await caller.close();
  }
}
