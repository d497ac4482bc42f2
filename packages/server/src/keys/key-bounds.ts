/**
 * What a stored key's request carries to the governor: its `KeyBounds` (the key gates and the key's
 * budget, booked with the tenant's). `boundsOf` is the one place a record becomes them.
 */
import type { KeyBounds, StoredKey } from '@pgw/core';

export const boundsOf = (key: StoredKey): KeyBounds => ({
  id: key.id,
  rpm: key.limits.rpm,
  tpm: key.limits.tpm,
  maxConcurrency: key.limits.maxConcurrency,
  ...(key.budget !== null && { budget: key.budget }),
});
