/** Argument checks shared by adapters (memory and Redis backends): bad input is a RangeError naming the argument. Each returns the value it checked. */
import type { BreakerPolicy } from './settings.js';

/** Token counts and limits (0 = unlimited for limits). */
export function assertNonNegativeInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

export function assertPositiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be an integer >= 1, got ${String(value)}`);
  }
  return value;
}

export function assertPositiveMs(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a finite number of milliseconds > 0, got ${String(value)}`);
  }
  return value;
}

/** An optional duration: `fallback` when absent, else checked like `assertPositiveMs`. */
export function optionalPositiveMs(value: number | undefined, name: string, fallback: number): number {
  return value === undefined ? fallback : assertPositiveMs(value, name);
}

/**
 * A breaker policy every Breaker adapter can run: integer threshold and sample floor ≥ 1, a failure
 * rate in (0, 1], positive durations, and a cooldown cap no shorter than the cooldown. Returns a
 * copy, so the caller changing its object later cannot change a breaker built from it.
 */
export function assertBreakerPolicy(policy: BreakerPolicy): BreakerPolicy {
  assertPositiveInteger(policy.failureThreshold, 'policy.failureThreshold');
  assertPositiveInteger(policy.minSamples, 'policy.minSamples');
  if (!(policy.failureRate > 0 && policy.failureRate <= 1)) {
    throw new RangeError(`policy.failureRate must be in (0, 1], got ${String(policy.failureRate)}`);
  }
  for (const key of ['windowMs', 'cooldownMs', 'maxCooldownMs', 'probeTtlMs'] as const) {
    assertPositiveMs(policy[key], `policy.${key}`);
  }
  if (policy.maxCooldownMs < policy.cooldownMs) {
    throw new RangeError(`policy.maxCooldownMs (${policy.maxCooldownMs}) must be >= policy.cooldownMs (${policy.cooldownMs})`);
  }
  return { ...policy };
}
