/**
 * A stored API key's own bounds (docs/architecture.md#keys): its RPM, TPM and concurrency, and its
 * spend budget per window, gates of the governor beside its tenant's, checked and booked in the same
 * store operation. A key's books live in the scope's books (its hash slot on a Redis Cluster), so a
 * key is bounded within each scope it calls (docs/decisions.md#key-gates-per-scope-issue-49).
 */
import { BUDGET_PERIODS, MAX_BUDGET_USD } from './budget.js';

/** The windows a key's budget can have: the budgets' UTC periods; `total` never resets. */
export const KEY_BUDGET_WINDOWS = BUDGET_PERIODS;
export type KeyBudgetWindow = (typeof KEY_BUDGET_WINDOWS)[number];

/** What one key may use: its bounds (0 = unbounded) and its spend budget, as its record holds them now. */
export interface KeyBounds {
  /** The key's stable id ("key_…"), never the key. */
  readonly id: string;
  readonly rpm: number;
  readonly tpm: number;
  readonly maxConcurrency: number;
  readonly budget?: { readonly usd: number; readonly window: KeyBudgetWindow };
}

/** A key's three gates, checked after its tenant's. */
export const KEY_GATES = ['key_rpm', 'key_tpm', 'key_concurrency'] as const;
export type KeyGate = (typeof KEY_GATES)[number];

/** A key's use of a scope now, as the governor's books have it (the admin API and the console show it against the bounds). */
export interface KeyStatus {
  readonly rpmUsed: number;
  readonly tpmUsed: number;
  readonly inflight: number;
  /** Settled spend of the budget's current window (0 without a budget). */
  readonly spentUsd: number;
  /** Start of the budget's next window (ms since epoch); absent for `total` or without a budget. */
  readonly resetAt?: number;
}

/** The longest key id kept: ids name books in the store. */
export const MAX_KEY_ID_LENGTH = 128;

/**
 * Checks bounds given in code (the door builds them from its key records); throws a TypeError
 * naming the offending field under `origin`. Ids are printable ASCII without spaces.
 */
export function assertKeyBounds(key: unknown, origin = 'key'): asserts key is KeyBounds {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) throw new TypeError(`${origin} must be an object { id, rpm, tpm, maxConcurrency, budget? }`);
  const bounds = key as Record<string, unknown>;
  for (const name of Object.keys(bounds)) {
    if (!['id', 'rpm', 'tpm', 'maxConcurrency', 'budget'].includes(name)) throw new TypeError(`${origin} has no field '${name}'`);
  }
  const { id } = bounds;
  if (typeof id !== 'string' || !/^[\x21-\x7e]+$/.test(id) || id.length > MAX_KEY_ID_LENGTH) {
    throw new TypeError(`${origin}.id must be a non-empty string of printable ASCII without spaces, at most ${MAX_KEY_ID_LENGTH} characters`);
  }
  for (const name of ['rpm', 'tpm', 'maxConcurrency'] as const) {
    const value = bounds[name];
    if (!Number.isSafeInteger(value) || (value as number) < 0) throw new TypeError(`${origin}.${name} must be a whole number ≥ 0 (0 = unbounded)`);
  }
  const { budget } = bounds;
  if (budget === undefined) return;
  if (typeof budget !== 'object' || budget === null || Array.isArray(budget)) throw new TypeError(`${origin}.budget must be an object { usd, window }`);
  const { usd, window, ...rest } = budget as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw new TypeError(`${origin}.budget has no field '${extra}'`);
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd <= 0 || usd > MAX_BUDGET_USD) {
    throw new TypeError(`${origin}.budget.usd must be a number of USD > 0 and ≤ ${MAX_BUDGET_USD}`);
  }
  if (!(KEY_BUDGET_WINDOWS as readonly unknown[]).includes(window)) throw new TypeError(`${origin}.budget.window must be one of ${KEY_BUDGET_WINDOWS.join(' | ')}`);
}
