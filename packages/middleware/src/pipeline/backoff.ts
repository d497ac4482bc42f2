import type { RetryPolicy } from '@pgw/core';

/**
 * Delay before the next attempt after the `failureIndex`-th transient failure (0-based): exponential
 * with full jitter, capped by `backoffMaxMs`, then `max(jittered, retryAfterMs)`. A finite Retry-After
 * is honoured in full even above the cap — clamping it would re-hit a channel that said "not yet";
 * only the call deadline bounds it.
 */
export function backoffDelayMs(
  failureIndex: number,
  policy: Pick<RetryPolicy, 'backoffBaseMs' | 'backoffMaxMs'>,
  rng: () => number,
  retryAfterMs?: number,
): number {
  const ceiling = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** failureIndex);
  const jittered = rng() * ceiling;
  const hint = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : 0;
  return Math.max(jittered, hint);
}
