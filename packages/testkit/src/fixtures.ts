/** Governance fixtures the backend and middleware tests share, so a policy means the same everywhere. */
import type { BreakerPolicy, BreakerSnapshot, SourceLimits } from '@pgw/core';

/**
 * The breaker policy the breaker contract runs: threshold 3, rate 0.5, window 60 s, minSamples 10,
 * cooldown 1 s doubling to 8 s, probe lease 5 s. Spread it to vary one field.
 */
export const TEST_BREAKER_POLICY: Readonly<BreakerPolicy> = Object.freeze({
  failureThreshold: 3,
  failureRate: 0.5,
  windowMs: 60_000,
  minSamples: 10,
  cooldownMs: 1_000,
  maxCooldownMs: 8_000,
  probeTtlMs: 5_000,
});

/** Limits that never deny (0 = unlimited), for a source or for the whole scope. */
export const UNLIMITED: Readonly<SourceLimits> = Object.freeze({ rpm: 0, tpm: 0, maxConcurrency: 0 });

/** What `snapshot()` shows of a breaker nothing has happened to (yet) at `epoch`. */
export function idleBreakerSnapshot(source: string, epoch: number): BreakerSnapshot {
  return {
    source,
    state: 'closed',
    epoch,
    openUntil: 0,
    consecutiveFailures: 0,
    reopenCount: 0,
    windowSuccesses: 0,
    windowFailures: 0,
    probeHeld: false,
  };
}
