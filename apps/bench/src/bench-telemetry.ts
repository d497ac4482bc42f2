/**
 * Benchmark 4: telemetry capacity — what each store absorbs on its own (rows/s through the
 * recorder's queue, synthetic attempt rows, the final flush timed). What telemetry costs governed
 * calls is measured in the chat benchmark, where the recorders' contenders flush inside each round.
 */
import { randomUUID } from 'node:crypto';
import type { TelemetryRecorder, TelemetryRow } from '@pgw/core';
import { timeOrderedId } from '@pgw/middleware/internal';
import { createTelemetryStores, type StoreKind } from './telemetry-stores.js';

const STORES: readonly StoreKind[] = ['sqlite', 'postgres'];
/** The gateway's ids (time-ordered) and, for comparison, random UUIDv4s: both go into indexed columns. */
const ID_KINDS = { 'time-ordered': () => timeOrderedId(), 'random v4': () => randomUUID() } as const;
export type IdKind = keyof typeof ID_KINDS;

export interface TelemetryBenchOptions {
  pgDsn: string;
  /** Rows pushed in the capacity run of each store. */
  capacityRows: number;
}

export interface CapacityRow {
  store: StoreKind;
  ids: IdKind;
  rows: number;
  rowsPerSecond: number;
  written: number;
  dropped: number;
}

export interface TelemetryBenchResult {
  capacity: CapacityRow[];
}

export async function runTelemetryBench(options: TelemetryBenchOptions): Promise<TelemetryBenchResult> {
  const stores = await createTelemetryStores(options.pgDsn);
  try {
    const capacity: CapacityRow[] = [];
    // The whole batch is queued at once, so the queue must hold it and the final flush may take a while.
    const capacityQueue = { maxQueue: options.capacityRows, flushTimeoutMs: 120_000 };
    for (const store of STORES) {
      for (const ids of Object.keys(ID_KINDS) as IdKind[]) {
        const recorder = await stores.open(store, `capacity_${store}_${ids === 'random v4' ? 'v4' : 'ordered'}`, capacityQueue);
        capacity.push(await measureCapacity(store, ids, options.capacityRows, recorder));
      }
    }
    return { capacity };
  } finally {
    await stores.dispose();
  }
}

/** A realistic successful attempt row (texts capped well below the default 4096). */
function syntheticRow(i: number, newId: () => string): TelemetryRow {
  const id = newId();
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

async function measureCapacity(store: StoreKind, ids: IdKind, rows: number, recorder: TelemetryRecorder): Promise<CapacityRow> {
  try {
    const newId = ID_KINDS[ids];
    const started = performance.now();
    for (let i = 0; i < rows; i++) recorder.record(syntheticRow(i, newId));
    await recorder.flush();
    const seconds = (performance.now() - started) / 1000;
    const { written, dropped } = recorder.stats();
    return { store, ids, rows, rowsPerSecond: written / seconds, written, dropped };
  } finally {
    await recorder.close();
  }
}
