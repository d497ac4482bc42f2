/**
 * The spend budgets a report shows: every `{SCOPE}__BUDGET__USD` of the effective env, against the
 * cost the telemetry rows of that scope carry since the start of the budget's current period.
 */
import { formatInstant, formatUsd } from './format.js';
import type { BudgetPolicy, SummaryRange, TelemetrySummary } from '@pgw/core';
import { assertBudgetPolicy, budgetPeriodAt } from '@pgw/core/internal';

export interface BudgetSpend {
  readonly scope: string;
  readonly policy: BudgetPolicy;
  /** Start of the current period (0 for `total`). */
  readonly since: number;
  readonly resetAt: number | undefined;
  /** Sum of the scope's `cost_usd` since `since` (per tenant: all tenants together). */
  readonly spentUsd: number;
  /** A per-tenant budget's spend of each tenant (`(none)`: calls without one), most first. */
  readonly tenants?: ReadonlyArray<{ readonly tenantId: string; readonly spentUsd: number }>;
}

/** Tenants a per-tenant budget shows one by one; the others share a row. */
const TENANTS_SHOWN = 10;

const BUDGET_KEY = /^([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*)__BUDGET__USD$/;

/** The budgets the env declares; one the client would refuse (a bad value) is left out. */
export function budgetsInEnv(env: ReadonlyMap<string, string>): Array<{ scope: string; policy: BudgetPolicy }> {
  const budgets: Array<{ scope: string; policy: BudgetPolicy }> = [];
  for (const [key, value] of env) {
    const scope = BUDGET_KEY.exec(key)?.[1];
    if (scope === undefined) continue;
    const policy = {
      usd: Number(value),
      period: (env.get(`${scope}__BUDGET__PERIOD`) ?? 'day') as BudgetPolicy['period'],
      per: (env.get(`${scope}__BUDGET__PER`) ?? 'scope') as BudgetPolicy['per'],
    };
    try {
      assertBudgetPolicy(policy);
      budgets.push({ scope: scope.toUpperCase(), policy });
    } catch {
      // The client names the bad key when it starts; the report has nothing to show for it.
    }
  }
  return budgets.sort((a, b) => a.scope.localeCompare(b.scope));
}

/** Each budget's spend in its current period, one summary per distinct period start. */
export async function budgetSpends(
  budgets: ReadonlyArray<{ scope: string; policy: BudgetPolicy }>,
  summarize: (range: SummaryRange) => Promise<TelemetrySummary>,
  now: number,
): Promise<BudgetSpend[]> {
  const summaries = new Map<number, Promise<TelemetrySummary>>();
  return Promise.all(
    budgets.map(async ({ scope, policy }) => {
      const { start, resetAt } = budgetPeriodAt(policy.period, now);
      let summary = summaries.get(start);
      if (summary === undefined) {
        summary = summarize({ since: start, until: now + 1 });
        summaries.set(start, summary);
      }
      const { costByScope, costByScopeTenant } = await summary;
      const spend = { scope, policy, since: start, resetAt, spentUsd: costByScope[scope] ?? 0 };
      if (policy.per === 'scope') return spend;
      const tenants = Object.entries(costByScopeTenant[scope] ?? {})
        .map(([tenantId, spentUsd]) => ({ tenantId, spentUsd }))
        .sort((a, b) => b.spentUsd - a.spentUsd || a.tenantId.localeCompare(b.tenantId));
      return { ...spend, tenants };
    }),
  );
}

/** The columns and rows of the budgets table; the text columns are `BUDGET_TEXT_COLUMNS`. */
export const BUDGET_COLUMNS = ['scope', 'tenant', 'period', 'budget', 'spent', 'used', 'resets'] as const;
export const BUDGET_TEXT_COLUMNS: readonly number[] = [0, 1, 2, 6];

export function budgetRows(spends: readonly BudgetSpend[]): string[][] {
  return spends.flatMap(({ scope, policy, spentUsd, resetAt, tenants }) => {
    const row = (tenant: string, spent: number, used: boolean) => [
      scope,
      tenant,
      policy.period,
      `${formatUsd(policy.usd)}${policy.per === 'tenant' ? ' per tenant' : ''}`,
      formatUsd(spent),
      used ? `${((100 * spent) / policy.usd).toFixed(1)}%` : '—',
      resetAt === undefined ? 'never' : formatInstant(resetAt),
    ];
    if (tenants === undefined) return [row('—', spentUsd, true)];
    if (tenants.length === 0) return [row('—', 0, false)];
    const rest = tenants.slice(TENANTS_SHOWN);
    return [
      ...tenants.slice(0, TENANTS_SHOWN).map(({ tenantId, spentUsd: spent }) => row(tenantId, spent, true)),
      ...(rest.length === 0 ? [] : [row(`(${rest.length} more)`, rest.reduce((sum, { spentUsd: spent }) => sum + spent, 0), false)]),
    ];
  });
}
