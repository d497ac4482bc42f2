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
