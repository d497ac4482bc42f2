import type { Limiter, SelectorKind, Source, SourceStats } from '@pgw/core';
import type { HealthBook } from './health.js';

/** Orders the scope's sources by preference for the next attempt (all of them; admission filters). */
export type Selector = () => Promise<Source[]>;

export interface SelectorDeps {
  sources: readonly Source[];
  limiter: Limiter;
  health: HealthBook;
  rng: () => number;
}

/** Latency at which the health_aware latency factor halves. */
const LATENCY_SCALE_MS = 1000;

export function createSelector(kind: SelectorKind, deps: SelectorDeps): Selector {
  const sources = [...deps.sources];
  switch (kind) {
    case 'ordered':
      return async () => [...sources];
    case 'round_robin': {
      let next = 0;
      return async () => {
        const start = next % sources.length;
        next = start + 1;
        return [...sources.slice(start), ...sources.slice(0, start)];
      };
    }
    case 'weighted':
      return async () => weightedOrder(sources, deps.rng);
    case 'health_aware':
      // One source has one order: reading its stats (a store round trip with Redis) would change nothing.
      if (sources.length === 1) return async () => [...sources];
      return async () => {
        const stats = await Promise.all(sources.map((source) => deps.limiter.sourceStats(source.name)));
        const scores = sources.map((source, i) => healthScore(source, stats[i]!, deps.health));
        return byScore(sources, scores);
      };
  }
}

/** Success EWMA × latency factor × headroom left under the source's own gates. */
export function healthScore(source: Source, stats: SourceStats, health: HealthBook): number {
  const latency = health.latencyMs(source.name);
  const latencyFactor = latency === undefined ? 1 : 1 / (1 + latency / LATENCY_SCALE_MS);
  return health.successRate(source.name) * latencyFactor * headroom(source, stats);
}

/** The tightest remaining fraction of the source's concurrency, RPM and TPM (1 when unlimited). */
export function headroom(source: Source, stats: SourceStats): number {
  const fractions = [
    [stats.inflight, source.maxConcurrency],
    [stats.rpmUsed, source.rpm],
    [stats.tpmUsed, source.tpm],
  ]
    .filter(([, limit]) => limit! > 0)
    .map(([used, limit]) => 1 - used! / limit!);
  return Math.max(0, Math.min(1, ...fractions));
}

/** Weighted random order without replacement (Efraimidis–Spirakis keys); weight ≤ 0 goes last. */
function weightedOrder(sources: readonly Source[], rng: () => number): Source[] {
  const keys = sources.map((source) => (source.weight > 0 ? rng() ** (1 / source.weight) : -1));
  return byScore(sources, keys);
}

/** Descending score; the configured source order breaks ties. */
function byScore(sources: readonly Source[], scores: readonly number[]): Source[] {
  return sources
    .map((source, index) => ({ source, index, score: scores[index]! }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.source);
}

/**
 * Within one logical call, sources that failed go behind the others (fail over first), least
 * recently failed first; a failed source comes back only when nothing else is eligible.
 */
export function deprioritiseFailed(order: readonly Source[], failedByRecency: readonly string[]): Source[] {
  if (failedByRecency.length === 0) return [...order];
  const rank = (source: Source): number => failedByRecency.indexOf(source.name);
  const fresh = order.filter((source) => rank(source) < 0);
  const failed = order.filter((source) => rank(source) >= 0).sort((a, b) => rank(a) - rank(b));
  return [...fresh, ...failed];
}
