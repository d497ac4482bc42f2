import type { BudgetStatus, Governor } from '@pgw/core';
import { isPlainObject } from './call-input.js';

export interface BudgetStatusOptions {
  /** The tenant whose budget to read, under `per: 'tenant'`; omitted: the tenant-less calls' (or the scope's) budget. */
  tenantId?: string;
}

/** What `client.budgetStatus()` answers: the budget a call of the tenant spends, read from the governor that keeps it. */
export async function readBudgetStatus(
  governor: Governor,
  options: BudgetStatusOptions,
  client: string,
): Promise<BudgetStatus | undefined> {
  if (!isPlainObject(options) || (options.tenantId !== undefined && typeof options.tenantId !== 'string')) {
    throw new TypeError(`${client}.budgetStatus(options.tenantId) must be a string when given`);
  }
  return governor.budgetStatus?.(options.tenantId);
}
