/**
 * Benchmark 5: memory with many calls in flight. A plain-node child on the packages' built dist (so
 * the figures are the client's alone, without tsx) holds `calls` streaming calls open against the
 * mock's hanging source with one caller signal — governed, and raw undici in the same shape as the
 * baseline; heap and RSS are read after a forced GC at baseline and at peak, then every call is
 * aborted and the books checked.
 */
import { execFileSync } from 'node:child_process';
import { ChildChannel } from './child.js';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import type { MockProcess } from './mock-process.js';
import { SOURCES } from './mock-script.js';

export type MemoryMode = 'governed' | 'raw';

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
  mode: MemoryMode;
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

/** Builds the dist the probe imports (the client and the packages it loads). */
export function buildDist(): void {
  // turbo caches the outputs, so an unchanged tree builds in a moment.
  execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter=@pgw/client...', '--output-logs=errors-only'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function runMemoryBench(options: MemoryBenchOptions): Promise<MemoryRun[]> {
  buildDist();
  const runs: MemoryRun[] = [];
  for (const connections of options.connectionCounts) {
    for (const mode of ['raw', 'governed'] as const) runs.push(await runOnce(options, mode, connections));
  }
  return runs;
}

async function runOnce(options: MemoryBenchOptions, mode: MemoryMode, connections: number): Promise<MemoryRun> {
  const { mock, calls } = options;
  const baseUrl = mock.baseUrl(SOURCES.hang);
  // Limits raised so every call is admitted; a timeout far beyond the hold so none expires on its own.
  const settings = benchSettings({ scope: uniqueScope('BENCH_MEM'), baseUrl, backend: 'memory', maxConcurrency: calls, timeoutMs: 600_000 });
  const child = new ChildChannel(new URL('../plain/memory-probe.mjs', import.meta.url), {
    args: [mode, baseUrl, String(calls), String(connections), JSON.stringify(settings)],
    nodeFlags: ['--expose-gc'],
    plain: true,
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
      mode,
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
