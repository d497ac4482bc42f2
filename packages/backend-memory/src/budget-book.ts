import type { BudgetCharge, BudgetPolicy, BudgetRefusal, BudgetStatus, KeyBounds } from '@pgw/core';
import { budgetPeriodAt, budgetTenantOf, budgetUsdOf, fromNanoUsd, toNanoUsd } from '@pgw/core/internal';
import { CONCURRENCY_POLL_MS } from './limiter.js';

/** One budget in one period, in nano-dollars (`key`: a key's own budget, by the key's id). Holds are kept in the order they expire (one TTL for all). */
class Account {
  spent = 0;
  reserved = 0;
  readonly holds = new Set<Hold>();

  constructor(
    readonly tenant: string | undefined,
    public budgetNano: number,
    readonly resetAt: number | undefined,
    readonly key?: string,
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
    return refusalOf(this.#account(charge.tenantId, now), charge.reserveUsd, this.options.scope);
  }

  /** Books `charge` (after `check` and the six gates admitted, in the same turn). */
  reserve(charge: BudgetCharge, now: number): Hold {
    return reserveOn(this.#account(charge.tenantId, now), charge.reserveUsd, now + this.options.leaseTtlMs);
  }

  status(tenantId: string | undefined, now: number): BudgetStatus {
    return statusOf(this.#account(tenantId, now), this.options.scope);
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

/** Why `reserveUsd` may not be reserved on `account` now, or undefined when it fits. */
function refusalOf(account: Account, reserveUsd: number, scope: string): BudgetRefusal | undefined {
  const nano = toNanoUsd(reserveUsd);
  if (account.spent + nano > account.budgetNano) return { exceeded: true, status: statusOf(account, scope), retryAfterMs: 0 };
  if (account.spent + account.reserved + nano > account.budgetNano) {
    return { exceeded: false, status: statusOf(account, scope), retryAfterMs: CONCURRENCY_POLL_MS };
  }
  return undefined;
}

function reserveOn(account: Account, reserveUsd: number, expiresAt: number): Hold {
  const hold: Hold = { account, nano: toNanoUsd(reserveUsd), expiresAt };
  account.holds.add(hold);
  account.reserved += hold.nano;
  return hold;
}

function statusOf(account: Account, scope: string): BudgetStatus {
  return {
    scope,
    ...(account.tenant !== undefined && { tenantId: account.tenant }),
    ...(account.key !== undefined && { keyId: account.key }),
    budgetUsd: fromNanoUsd(account.budgetNano),
    spentUsd: fromNanoUsd(account.spent),
    reservedUsd: fromNanoUsd(account.reserved),
    resetAt: account.resetAt,
  };
}

/** Keys' accounts past which those of ended windows are dropped (a `total` account is kept: it never ends). */
const MAX_KEY_ACCOUNTS = 10_000;

/** A key with a spend budget. */
export type BudgetedKey = KeyBounds & { readonly budget: NonNullable<KeyBounds['budget']> };

/**
 * The spend budgets of the stored keys that call a scope (docs/architecture.md#keys): an account per
 * key per window, its amount and window as the key's record says at each call. Checked and reserved
 * in the same synchronous admission as the scope's budget and the gates.
 */
export class KeyBudgets {
  readonly #accounts = new Map<string, Account>();

  constructor(
    private readonly scope: string,
    private readonly leaseTtlMs: number,
  ) {}

  check(key: BudgetedKey, reserveUsd: number, now: number): BudgetRefusal | undefined {
    return refusalOf(this.#account(key, now), reserveUsd, this.scope);
  }

  reserve(key: BudgetedKey, reserveUsd: number, now: number): Hold {
    return reserveOn(this.#account(key, now), reserveUsd, now + this.leaseTtlMs);
  }

  /** The key's settled spend and reservations in its current window (an empty account when it never spent). */
  status(key: BudgetedKey, now: number): BudgetStatus {
    return statusOf(this.#account(key, now), this.scope);
  }

  #account({ id, budget }: BudgetedKey, now: number): Account {
    const period = budgetPeriodAt(budget.window, now);
    const name = `${budget.window}:${id}@${period.start}`;
    let account = this.#accounts.get(name);
    if (account === undefined) {
      if (this.#accounts.size >= MAX_KEY_ACCOUNTS) this.#dropSpare(now);
      account = new Account(undefined, 0, period.resetAt, id);
      this.#accounts.set(name, account);
    }
    account.budgetNano = toNanoUsd(budget.usd);
    account.expire(now);
    return account;
  }

  /** Accounts of windows that ended longer than a lease ago: nothing can settle into them. */
  #dropSpare(now: number): void {
    for (const [name, account] of this.#accounts) {
      if (account.resetAt !== undefined && account.resetAt + this.leaseTtlMs <= now) this.#accounts.delete(name);
    }
  }
}
