/**
 * What a stored key's request carries to the governor: the `KeyBounds` of KEYS-API.md (the governor's
 * key gates and key budget, branch keys-gates). Declared here with that exact shape until @pgw/core
 * exports it; `boundsOf` is the one place a record becomes it.
 */
import type { KeyBudgetWindow, StoredKey } from '@pgw/core';

export interface StoredKeyBounds {
  readonly id: string;
  readonly rpm: number;
  readonly tpm: number;
  readonly maxConcurrency: number;
  readonly budget?: { readonly usd: number; readonly window: KeyBudgetWindow };
}

export const boundsOf = (key: StoredKey): StoredKeyBounds => ({
  id: key.id,
  rpm: key.limits.rpm,
  tpm: key.limits.tpm,
  maxConcurrency: key.limits.maxConcurrency,
  ...(key.budget !== null && { budget: key.budget }),
});
