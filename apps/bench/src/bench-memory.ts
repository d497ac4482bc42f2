/**
 * Benchmark 5: memory with many calls in flight. A child process (so the figures are the client's
 * alone) holds `calls` governed calls open against the mock's hanging source; heap and RSS are read
 * after a forced GC at baseline and at peak, then every call is aborted and the books checked.
 */
import { ChildChannel } from './child.js';
import type { MockProcess } from './mock-process.js';
import { SOURCES } from './mock-script.js';

export interface MemoryBenchOptions {
  mock: MockProcess;
  calls: number;
  /** Transport connections in each run: the default pool (calls queue in undici) and one per call. */
  connectionCounts: readonly number[];
  /** How long to wait for every call to be admitted and on the wire. */
  settleTimeoutMs: number;
}

export interface MemorySample {
  heapUsedBytes: number;
  rssBytes: number;
}

export interface MemoryRun {
  calls: number;
  connections: number;
  /** Calls the mock saw open at peak (≤ connections: the rest wait in undici's queue). */
  onTheWire: number;
  admitted: number;
  /** From launching the calls until all were admitted and on the wire. */
  rampMs: number;
  baseline: MemorySample;
  peak: MemorySample & { signalListeners: number };
  afterAbort: MemorySample & { aborted: number; inflightAfter: number; signalListenersAfter: number };
  heapPerCallBytes: number;
  /** Every call ended as an AbortError, the limiter's inflight is 0, the caller's signal holds no listener. */
  pass: boolean;
}

interface Status {
  inflight: number;
}

export async function runMemoryBench(options: MemoryBenchOptions): Promise<MemoryRun[]> {
  const runs: MemoryRun[] = [];
  for (const connections of options.connectionCounts) runs.push(await runOnce(options, connections));
  return runs;
}

async function runOnce(options: MemoryBenchOptions, connections: number): Promise<MemoryRun> {
  const { mock, calls } = options;
  const child = new ChildChannel(new URL('./memory-child.ts', import.meta.url), {
    args: [mock.baseUrl(SOURCES.hang), String(calls), String(connections)],
    nodeFlags: ['--expose-gc'],
  });
  try {
    await mock.reset();
    const baseline = await child.request<MemorySample>('baseline');
    const launched = performance.now();
    await child.request('launch');
    const expectedOnWire = Math.min(calls, connections);
    const deadline = Date.now() + options.settleTimeoutMs;
    let admitted = 0;
    let onTheWire = 0;
    for (;;) {
      admitted = (await child.request<Status>('status')).inflight;
      onTheWire = (await mock.counters(SOURCES.hang)).inflight;
      if (admitted >= calls && onTheWire >= expectedOnWire) break;
      if (Date.now() > deadline) throw new Error(`after ${options.settleTimeoutMs} ms: ${admitted} admitted, ${onTheWire} on the wire (want ${calls}, ${expectedOnWire})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const rampMs = performance.now() - launched;
    const peak = await child.request<MemorySample & { signalListeners: number }>('measure');
    const afterAbort = await child.request<MemorySample & { aborted: number; inflightAfter: number; signalListenersAfter: number }>('abort');
    return {
      calls,
      connections,
      onTheWire,
      admitted,
      rampMs,
      baseline: pick(baseline),
      peak: { ...pick(peak), signalListeners: peak.signalListeners },
      afterAbort: {
        ...pick(afterAbort),
        aborted: afterAbort.aborted,
        inflightAfter: afterAbort.inflightAfter,
        signalListenersAfter: afterAbort.signalListenersAfter,
      },
      heapPerCallBytes: (peak.heapUsedBytes - baseline.heapUsedBytes) / calls,
      pass: afterAbort.aborted === calls && afterAbort.inflightAfter === 0 && afterAbort.signalListenersAfter === 0,
    };
  } finally {
    await child.stop();
  }
}

const pick = (sample: MemorySample): MemorySample => ({ heapUsedBytes: sample.heapUsedBytes, rssBytes: sample.rssBytes });
