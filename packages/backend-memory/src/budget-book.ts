import type { BudgetCharge, BudgetPolicy, BudgetRefusal, BudgetStatus } from '@pgw/core';
import { budgetPeriodAt, budgetTenantOf, budgetUsdOf, fromNanoUsd, toNanoUsd } from '@pgw/core/internal';
import { CONCURRENCY_POLL_MS } from './limiter.js';

/** One budget in one period, in nano-dollars. Holds are kept in the order they expire (one TTL for all). */
class Account {
  spent = 0;
  reserved = 0;
  readonly holds = new Set<Hold>();

  constructor(
    readonly tenant: string | undefined,
    readonly budgetNano: number,
    readonly resetAt: number | undefined,
  ) {}

  /** A reservation never settled within the lease TTL (its process died) is charged whole: it may have been billed. */
  expire(now: number): void {
    for (const hold of this.holds) {
      if (hold.expiresAt > now) return;
      this.holds.delete(hold);
      this.reserved -= hold.nano;
      this.spent += hold.nano;
    }
  }
}

/**
 * Replaces an attempt's reservation with what it cost (a negative or non-finite cost counts 0).
 * Only the first settle counts; a hold that expired was already charged whole.
 */
export function settleHold(hold: Hold, spentUsd: number): void {
  const { account } = hold;
  if (!account.holds.delete(hold)) return;
  account.reserved -= hold.nano;
  account.spent += Number.isFinite(spentUsd) && spentUsd > 0 ? toNanoUsd(spentUsd) : 0;
}

/** An attempt's reservation on one account. */
export interface Hold {
  readonly account: Account;
  readonly nano: number;
  readonly expiresAt: number;
}

export interface BudgetBookOptions {
  scope: string;
  policy: BudgetPolicy;
  leaseTtlMs: number;
}

/**
 * A scope's spend budgets in one process: an account per tenant (or one for the scope) per period.
 * `check` then `reserve` run in the same synchronous admission as the six gates, so no other call
 * can come between them. Accounts of past periods are dropped once nothing can settle into them.
 */
export class BudgetBook {
  readonly #accounts = new Map<string, Account>();

  constructor(private readonly options: BudgetBookOptions) {}

  /** Why `charge` may not be reserved now (nothing is booked), or undefined when it fits. */
  check(charge: BudgetCharge, now: number): BudgetRefusal | undefined {
    const account = this.#account(charge.tenantId, now);
    const nano = toNanoUsd(charge.reserveUsd);
    if (account.spent + nano > account.budgetNano) return { exceeded: true, status: this.#status(account), retryAfterMs: 0 };
    if (account.spent + account.reserved + nano > account.budgetNano) {
      return { exceeded: false, status: this.#status(account), retryAfterMs: CONCURRENCY_POLL_MS };
    }
    return undefined;
  }

  /** Books `charge` (after `check` and the six gates admitted, in the same turn). */
  reserve(charge: BudgetCharge, now: number): Hold {
    const account = this.#account(charge.tenantId, now);
    const hold: Hold = { account, nano: toNanoUsd(charge.reserveUsd), expiresAt: now + this.options.leaseTtlMs };
    account.holds.add(hold);
    account.reserved += hold.nano;
    return hold;
  }

  status(tenantId: string | undefined, now: number): BudgetStatus {
    return this.#status(this.#account(tenantId, now));
  }

  #status(account: Account): BudgetStatus {
    return {
      scope: this.options.scope,
      ...(account.tenant !== undefined && { tenantId: account.tenant }),
      budgetUsd: fromNanoUsd(account.budgetNano),
      spentUsd: fromNanoUsd(account.spent),
      reservedUsd: fromNanoUsd(account.reserved),
      resetAt: account.resetAt,
    };
  }

  #account(tenantId: string | undefined, now: number): Account {
    const { policy } = this.options;
    const tenant = budgetTenantOf(policy, tenantId);
    const period = budgetPeriodAt(policy.period, now);
    const key = `${tenant === undefined ? '-' : `t:${tenant}`}@${period.start}`;
    let account = this.#accounts.get(key);
    if (account === undefined) {
      this.#dropPast(now);
      account = new Account(tenant, toNanoUsd(budgetUsdOf(policy, tenant)), period.resetAt);
      this.#accounts.set(key, account);
    }
    account.expire(now);
    return account;
  }

  /** Accounts whose period ended longer than a lease ago: no attempt is left to settle into them. */
  #dropPast(now: number): void {
    for (const [key, account] of this.#accounts) {
      if (account.resetAt !== undefined && account.resetAt + this.options.leaseTtlMs <= now) this.#accounts.delete(key);
    }
  }
}
