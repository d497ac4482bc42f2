/** A tenant's four books, then the batch class's (keys.ts tenantKeys): the names every script gives them. */
export const TENANT_BOOKS = ['tenantWindow', 'tenantTokens', 'tenantTpm', 'tenantLeases', 'batchWindow', 'batchTokens', 'batchTpm', 'batchLeases'] as const;
