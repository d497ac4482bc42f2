/**
 * A tenant's four books, then the batch class's on the scope and on the source (keys.ts tenantKeys,
 * sourceBatchKeys): the names every script gives them.
 */
export const TENANT_BOOKS = [
  'tenantWindow',
  'tenantTokens',
  'tenantTpm',
  'tenantLeases',
  'batchWindow',
  'batchTokens',
  'batchTpm',
  'batchLeases',
  'sourceBatchWindow',
  'sourceBatchTokens',
  'sourceBatchTpm',
  'sourceBatchLeases',
] as const;

/** A stored key's four books (keys.ts keyKeys), and the base of its own budget. */
export const KEY_BOOKS = ['keyWindow', 'keyTokens', 'keyTpm', 'keyLeases', 'keyBudget'] as const;
/** A key's three limits (0 = unlimited) and whether the call has a key at all (1: its books are kept whatever the limits, for its status). */
export const KEY_LIMITS = ['keyRpm', 'keyTpm', 'keyMaxConcurrency', 'keyKept'] as const;
