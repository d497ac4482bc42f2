import type { BudgetStatus, Governor, TenantUse } from '@pgw/core';

/** What `client.tenantStatus()` answers: each of the tenant's gates (use and bound), its budget, and its calls waiting here. */
export interface TenantStatus extends TenantUse {
  /** The spend budget its calls spend (undefined when the scope has none). */
  readonly budget: BudgetStatus | undefined;
  /** Its calls waiting for room in this process now. */
  readonly waiting: number;
}

/** Reads a tenant's use of the scope from the governor that keeps its books (tenant `""` is the calls without one). */
export async function readTenantStatus(
  governor: Governor,
  tenantId: unknown,
  waiting: (tenantId: string) => number,
  client: string,
): Promise<TenantStatus> {
  if (typeof tenantId !== 'string') throw new TypeError(`${client}.tenantStatus(tenantId) must be a string ("" = calls without a tenant)`);
  if (governor.tenantStatus === undefined) throw new TypeError(`${client}.tenantStatus: this governor keeps no tenant books`);
  const [use, budget] = await Promise.all([governor.tenantStatus(tenantId), governor.budgetStatus?.(tenantId === '' ? undefined : tenantId)]);
  return { ...use, budget, waiting: waiting(tenantId) };
}
