import { type BudgetCharge, type BudgetPeriod, type BudgetPolicy, type BudgetRefusal, type BudgetStatus, type KeyBounds } from '@pgw/core';
import { budgetTenantOf, budgetUsdOf, fromNanoUsd, toNanoUsd } from '@pgw/core/internal';
import { budgetKey, keyBudgetKey, scopePrefix } from './keys.js';
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

  /**
   * FINISH's budget fields: the scope's and the key's accounts' period starts ('' = not charged) and
   * the cost (a negative or non-finite cost counts 0).
   */
  static settlement(part: BudgetPart | undefined, keyPart: KeyBudgetPart | undefined, spentUsd: number) {
    return {
      budgetPeriodStart: part?.periodStart ?? '',
      keyBudgetPeriodStart: keyPart?.periodStart ?? '',
      costNano: part === undefined && keyPart === undefined ? 0 : Number.isFinite(spentUsd) && spentUsd > 0 ? toNanoUsd(spentUsd) : 0,
    };
  }
}

/** One attempt's charge on its key's own budget; `periodStart` is the account it reserved in. */
export interface KeyBudgetPart extends BudgetPart {
  readonly keyId: string;
}

/**
 * The charge on a key's own budget, when the key has one: the attempt's reservation (0 without a
 * charge: what finish reports still settles into it), at the amount its record says now.
 */
export function keyBudgetPart(scope: string, key: KeyBounds | undefined, charge: BudgetCharge | undefined): KeyBudgetPart | undefined {
  const budget = key?.budget;
  if (budget === undefined) return undefined;
  return {
    key: keyBudgetKey(scopePrefix(scope), key!.id, budget.window),
    keyId: key!.id,
    tenant: undefined,
    period: budget.window,
    budgetNano: toNanoUsd(budget.usd),
    reservationNano: charge === undefined ? 0 : toNanoUsd(charge.reserveUsd),
  };
}

/** A key budget's books (from ADMIT's refusal or BUDGET_STATUS) as the status it is. */
export function keyBudgetStatus(scope: string, part: KeyBudgetPart, { spent, reserved, resetAt }: BudgetBooks): BudgetStatus {
  return {
    scope,
    keyId: part.keyId,
    budgetUsd: fromNanoUsd(part.budgetNano),
    spentUsd: fromNanoUsd(spent),
    reservedUsd: fromNanoUsd(reserved),
    resetAt: resetAt < 0 ? undefined : resetAt,
  };
}

/** ADMIT's budgetRefused reply for a key's budget as the refusal it is. */
export function keyBudgetRefusal(scope: string, reply: BudgetBooks & { readonly exceeded: number }, part: KeyBudgetPart): BudgetRefusal {
  const exceeded = reply.exceeded === 1;
  return { exceeded, status: keyBudgetStatus(scope, part, reply), retryAfterMs: exceeded ? 0 : CONCURRENCY_POLL_MS };
}
