import type { BreakerState, Governor, SourceConfig } from '@pgw/core';

/** What `client.sourceStatus()` answers of one source: its breaker and its quota use against its bounds, now. */
export interface SourceStatus {
  readonly source: string;
  readonly model: string;
  /** Undefined when the governor shows no breaker books (a custom governor without `breakerSnapshot`). */
  readonly breaker: { readonly state: BreakerState; readonly openUntil: number; readonly consecutiveFailures: number } | undefined;
  readonly rpm: { readonly used: number; readonly bound: number };
  readonly tpm: { readonly used: number; readonly bound: number };
  /** `used`: attempts in flight at the source (across the fleet on a shared governor). */
  readonly concurrency: { readonly used: number; readonly bound: number };
}

type SourceLimits = Pick<SourceConfig, 'name' | 'model' | 'rpm' | 'tpm' | 'maxConcurrency'>;

/** Reads every source's breaker and quota books from the governor that keeps them, in the settings' order. */
export function readSourceStatus(governor: Governor, sources: readonly SourceLimits[]): Promise<SourceStatus[]> {
  return Promise.all(
    sources.map(async ({ name, model, rpm, tpm, maxConcurrency }) => {
      const [stats, snapshot] = await Promise.all([governor.sourceStats(name), governor.breakerSnapshot?.(name)]);
      return {
        source: name,
        model,
        breaker: snapshot && { state: snapshot.state, openUntil: snapshot.openUntil, consecutiveFailures: snapshot.consecutiveFailures },
        rpm: { used: stats.rpmUsed, bound: rpm },
        tpm: { used: stats.tpmUsed, bound: tpm },
        concurrency: { used: stats.inflight, bound: maxConcurrency },
      };
    }),
  );
}
