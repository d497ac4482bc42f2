/** What benchmark 3's workers share: one source, limits no run reaches, and a deterministic settle amount. */
import type { GlobalLimits, SourceLimits } from '@pgw/core';

export const GOVERNANCE_SOURCE = 'shared';

const NEVER_REACHED: SourceLimits & GlobalLimits = { rpm: 100_000_000, tpm: 1_000_000_000_000, maxConcurrency: 100_000 };

export const GOVERNANCE_LIMITS = {
  sources: { [GOVERNANCE_SOURCE]: NEVER_REACHED },
  global: NEVER_REACHED,
  leaseTtlMs: 300_000,
};

/** The admission estimate; each settle then applies `actual − est`. */
export const GOVERNANCE_EST_TOKENS = 100;

/** The usage worker `worker` reports for its `i`-th admission: 1..200, so settles move TPM both ways. */
export function settledTokens(worker: number, i: number): number {
  return ((worker * 7919 + i * 104_729) % 200) + 1;
}
