import { type BudgetCharge, type BudgetPeriod, type BudgetPolicy, type BudgetRefusal, type BudgetStatus } from '@pgw/core';
import { budgetTenantOf, budgetUsdOf, fromNanoUsd, toNanoUsd } from '@pgw/core/internal';
import { budgetKey, scopePrefix } from './keys.js';
import { CONCURRENCY_POLL_MS } from './limiter.js';
import { numbers } from './scripts.js';

/** One attempt's charge as the governor's scripts take it; `periodStart` is the account it reserved in. */
export interface BudgetPart {
  readonly key: string;
  readonly tenant: string | undefined;
  readonly period: BudgetPeriod;
  readonly budgetNano: number;
  /** ADMIT's budget ARGV: period, reservation, budget (nano-dollars). */
  readonly admitArgs: readonly (string | number)[];
  readonly periodStart?: string;
}

/** A scope's spend budget on Redis: the keys an attempt charges, and the scripts' replies read back. */
export class BudgetKeys {
  readonly #prefix: string;

  constructor(
    private readonly scope: string,
    readonly policy: BudgetPolicy,
  ) {
    this.#prefix = scopePrefix(scope);
  }

  keyOf(tenant: string | undefined): string {
    return budgetKey(this.#prefix, tenant);
  }

  charged(charge: BudgetCharge): BudgetPart {
    const tenant = budgetTenantOf(this.policy, charge.tenantId);
    const budgetNano = toNanoUsd(budgetUsdOf(this.policy, tenant));
    const { period } = this.policy;
    return { key: this.keyOf(tenant), tenant, period, budgetNano, admitArgs: [period, toNanoUsd(charge.reserveUsd), budgetNano] };
  }

  /** `{4, exceeded, spent, reserved, resetAt}` from ADMIT. */
  refusal(reply: unknown, part: BudgetPart): BudgetRefusal {
    const [, exceeded, spent, reserved, resetAt] = numbers(reply, 5);
    return { exceeded: exceeded === 1, status: this.status(part.tenant, [spent, reserved, resetAt]), retryAfterMs: exceeded === 1 ? 0 : CONCURRENCY_POLL_MS };
  }

  /** `[spent, reserved, resetAt]` in nano-dollars (resetAt -1: never). */
  status(tenant: string | undefined, [spent, reserved, resetAt]: readonly [number, number, number]): BudgetStatus {
    return {
      scope: this.scope,
      ...(tenant !== undefined && { tenantId: tenant }),
      budgetUsd: budgetUsdOf(this.policy, tenant),
      spentUsd: fromNanoUsd(spent),
      reservedUsd: fromNanoUsd(reserved),
      resetAt: resetAt < 0 ? undefined : resetAt,
    };
  }

  /** FINISH's budget ARGV: the account's period start and the cost (a negative or non-finite cost counts 0). */
  static settleArgs(part: BudgetPart, spentUsd: number): (string | number)[] {
    return [part.periodStart ?? '', Number.isFinite(spentUsd) && spentUsd > 0 ? toNanoUsd(spentUsd) : 0];
  }
}
