/** The per-tenant rows of a report: calls, failed calls, cost, and the wait for admission per priority class. */
import { PRIORITIES } from '@pgw/core';
import { formatCount, formatMs, formatUsd } from './format.js';
import type { Report } from './report-model.js';

export const TENANT_COLUMNS = ['tenant', 'calls', 'errors', 'cost', ...PRIORITIES.flatMap((priority) => [`${priority} wait p50`, `${priority} wait p95`])];

/** Busiest first; a class without a recorded wait shows `–`. The tenant `""` is the store's `(none)`. */
export function tenantRows(tenants: Report['summary']['tenants']): string[][] {
  return Object.entries(tenants)
    .sort(([a, x], [b, y]) => y.calls - x.calls || a.localeCompare(b))
    .map(([tenant, summary]) => [
      tenant,
      formatCount(summary.calls),
      formatCount(summary.failedCalls),
      formatUsd(summary.costUsd),
      ...PRIORITIES.flatMap((priority) => {
        const wait = summary.waitByPriority[priority];
        return wait === undefined ? ['–', '–'] : [formatMs(wait.p50), formatMs(wait.p95)];
      }),
    ]);
}
