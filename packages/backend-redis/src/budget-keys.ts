import { type BudgetCharge, type BudgetPeriod, type BudgetPolicy, type BudgetRefusal, type BudgetStatus } from '@pgw/core';
import { budgetTenantOf, budgetUsdOf, fromNanoUsd, toNanoUsd } from '@pgw/core/internal';
import { budgetKey, scopePrefix } from './keys.js';
import { CONCURRENCY_POLL_MS } from './limiter.js';

/** One attempt's charge as the governor's scripts take it; `periodStart` is the account it reserved in. */
export interface BudgetPart {
  readonly key: string;
  readonly tenant: string | undefined;
  readonly period: BudgetPeriod;
  readonly budgetNano: number;
  readonly reservationNano: number;
  readonly periodStart?: string;
}

/** A budget account's books as the scripts answer them, in nano-dollars. */
interface BudgetBooks {
  readonly spent: number;
  readonly reserved: number;
  readonly resetAt: number;
}

const NO_SETTLEMENT = Object.freeze({ budgetPeriodStart: '', costNano: 0 });

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
    return { key: this.keyOf(tenant), tenant, period, budgetNano, reservationNano: toNanoUsd(charge.reserveUsd) };
  }

  /** ADMIT's budgetRefused reply (nano-dollars) as the refusal it is. */
  refusal({ exceeded, spent, reserved, resetAt }: BudgetBooks & { readonly exceeded: number }, part: BudgetPart): BudgetRefusal {
    return { exceeded: exceeded === 1, status: this.status(part.tenant, { spent, reserved, resetAt }), retryAfterMs: exceeded === 1 ? 0 : CONCURRENCY_POLL_MS };
  }

  /** The books in nano-dollars (resetAt -1: never). */
  status(tenant: string | undefined, { spent, reserved, resetAt }: BudgetBooks): BudgetStatus {
    return {
      scope: this.scope,
      ...(tenant !== undefined && { tenantId: tenant }),
      budgetUsd: budgetUsdOf(this.policy, tenant),
      spentUsd: fromNanoUsd(spent),
      reservedUsd: fromNanoUsd(reserved),
      resetAt: resetAt < 0 ? undefined : resetAt,
    };
  }

  /** FINISH's budget fields: the account's period start and the cost (a negative or non-finite cost counts 0). */
  static settlement(part: BudgetPart | undefined, spentUsd: number): { readonly budgetPeriodStart: string; readonly costNano: number } {
    if (part === undefined) return NO_SETTLEMENT;
    return { budgetPeriodStart: part.periodStart ?? '', costNano: Number.isFinite(spentUsd) && spentUsd > 0 ? toNanoUsd(spentUsd) : 0 };
  }
}
