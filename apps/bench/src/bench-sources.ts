/**
 * Benchmark: per-call cost against the number of sources in a scope. Governed (memory) clients
 * whose scope has 1, 8, 32 or 64 sources (all on the zero-logic upstream), interleaved with raw
 * undici at one concurrency; reports calls/s and CPU µs per call of each.
 */
import { CONNECTIONS, gatewayCaller, rawUndiciCaller, type Caller } from './callers.js';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, ratio, runConcurrent, type Contender } from './harness.js';
import { ZERO_ROUTES, type ZeroUpstream } from './zero-upstream.js';

export interface SourcesBenchOptions {
  upstream: ZeroUpstream;
  sourceCounts: readonly number[];
  concurrency: number;
  callsPerRound: number;
  rounds: number;
}

export interface SourcesRow {
  name: string;
  /** Sources in the scope; undefined for raw undici. */
  sources?: number;
  callsPerSecond: number;
  ratioVsRaw: number;
  cpuUsPerCall: number;
  /** CPU per call over the 1-source client's. */
  cpuVsOneSource?: number;
  rates: number[];
  cpuUs: number[];
}

export interface SourcesBenchResult {
  concurrency: number;
  rounds: number;
  callsPerRound: number;
  rows: SourcesRow[];
}

export async function runSourcesBench(options: SourcesBenchOptions): Promise<SourcesBenchResult> {
  const baseUrl = options.upstream.baseUrl(ZERO_ROUTES.chat);
  const callers: Array<{ caller: Caller; sources?: number }> = [];
  try {
    callers.push({ caller: rawUndiciCaller('raw undici', baseUrl, CONNECTIONS) });
    for (const sourceCount of options.sourceCounts) {
      const settings = benchSettings({ scope: uniqueScope(), baseUrl, backend: 'memory', sourceCount });
      callers.push({ caller: await gatewayCaller(`gateway, ${sourceCount} source${sourceCount === 1 ? '' : 's'}`, settings), sources: sourceCount });
    }
    const contenders: Contender[] = callers.map(({ caller }) => ({
      name: caller.name,
      round: () => runConcurrent(options.callsPerRound, options.concurrency, () => caller.call()),
    }));
    const results = await interleave(contenders, { rounds: options.rounds });
    const raw = results[0]!;
    const one = results[1]!;
    const rows = results.map((r, i): SourcesRow => {
      const sources = callers[i]!.sources;
      return {
        name: r.name,
        ...(sources !== undefined && { sources, cpuVsOneSource: ratio(r.medianCpuUs, one.medianCpuUs) }),
        callsPerSecond: r.median,
        ratioVsRaw: ratio(r.median, raw.median),
        cpuUsPerCall: r.medianCpuUs,
        rates: r.rates,
        cpuUs: r.cpuUs,
      };
    });
    return { concurrency: options.concurrency, rounds: options.rounds, callsPerRound: options.callsPerRound, rows };
  } finally {
    for (const { caller } of callers) await caller.close();
  }
}
