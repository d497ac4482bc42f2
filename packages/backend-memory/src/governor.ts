import { assertBudgetPolicy, TicketLease } from '@pgw/core/internal';
import type {
  BreakerSnapshot,
  BreakerPolicy,
  BreakerTicket,
  BreakerTransition,
  BreakerVerdict,
  BudgetCharge,
  BudgetPolicy,
  BudgetStatus,
  Caller,
  Clock,
  Governor,
  GovernorRefusal,
  KeyBounds,
  KeyStatus,
  Lease,
  Permit,
  SourceStats,
  TenantUse,
} from '@pgw/core';
import { InMemoryBreaker } from './breaker.js';
import { BudgetBook, KeyBudgets, settleHold, type BudgetedKey, type Hold } from './budget-book.js';
import { InMemoryLimiter, type InMemoryLimiterOptions } from './limiter.js';

export type InMemoryGovernorOptions = InMemoryLimiterOptions & { policy: BreakerPolicy; budget?: BudgetPolicy };

/**
 * One process's breakers and six gates behind the `Governor` port, answering synchronously. As in
 * Redis, the gates are asked before a probe lease is taken, so a quota refusal leaves the breaker
 * untouched. `limiter` and `breaker` are the same books seen whole (stats, snapshots, tests).
 */
export class InMemoryGovernor implements Governor {
  readonly limiter: InMemoryLimiter;
  readonly breaker: InMemoryBreaker;
  readonly #budget: BudgetBook | undefined;
  readonly #keyBudgets: KeyBudgets;
  readonly #now: Clock;

  constructor(options: InMemoryGovernorOptions) {
    this.limiter = new InMemoryLimiter(options);
    this.breaker = new InMemoryBreaker({ ...options, sources: Object.keys(options.sources) });
    this.#now = options.now ?? Date.now;
    if (options.budget) assertBudgetPolicy(options.budget);
    this.#budget = options.budget && new BudgetBook({ scope: options.scope, policy: options.budget, leaseTtlMs: options.leaseTtlMs });
    this.#keyBudgets = new KeyBudgets(options.scope, options.leaseTtlMs);
  }

  admit(source: string, estTokens: number, _turn?: string, charge?: BudgetCharge, caller?: Caller): Lease | GovernorRefusal {
    const refusal = this.breaker.refusal(source);
    if (refusal) return { ok: false, refusal };
    const now = this.#now();
    const budget = charge && this.#budget;
    const spent = budget && budget.check(charge, now);
    if (spent) return { ok: false, budget: spent };
    // A key's budget without a charge reserves nothing: what finish reports still settles into it.
    const key = budgetedKey(caller);
    const keyReserveUsd = charge?.reserveUsd ?? 0;
    const keySpent = key && this.#keyBudgets.check(key, keyReserveUsd, now);
    if (keySpent) return { ok: false, budget: keySpent };
    const entered = this.limiter.enter(source, estTokens, caller);
    if ('gate' in entered) return entered;
    const ticket = this.breaker.acquire(source);
    const holds = [budget && budget.reserve(charge, now), key && this.#keyBudgets.reserve(key, keyReserveUsd, now)].filter((hold): hold is Hold => hold !== undefined);
    return new InMemoryLease(this.breaker, ticket, entered, holds);
  }

  sourceStats(source: string): SourceStats {
    return this.limiter.sourceStats(source);
  }

  breakerSnapshot(source: string): BreakerSnapshot {
    return this.breaker.snapshot(source);
  }

  tenantStatus(tenantId: string): TenantUse {
    return this.limiter.tenantUse(tenantId);
  }

  budgetStatus(tenantId?: string): BudgetStatus | undefined {
    return this.#budget?.status(tenantId, this.#now());
  }

  keyStatus(bounds: KeyBounds): KeyStatus {
    const { inflight, rpmUsed, tpmUsed } = this.limiter.keyUse(bounds.id);
    const key = budgetedKey({ key: bounds });
    if (key === undefined) return { rpmUsed, tpmUsed, inflight, spentUsd: 0 };
    const { spentUsd, resetAt } = this.#keyBudgets.status(key, this.#now());
    return { rpmUsed, tpmUsed, inflight, spentUsd, ...(resetAt !== undefined && { resetAt }) };
  }
}

/** One admitted attempt, built per admission: `finish` is a method (docs/decisions.md#lean-hot-path). */
class InMemoryLease extends TicketLease {
  constructor(
    private readonly breaker: InMemoryBreaker,
    private readonly ticket: BreakerTicket,
    private readonly permit: Permit & { settleAndRelease(actualTokens: number): void },
    /** Its budget reservations: the scope's (or its tenant's) and its key's. */
    private readonly holds: readonly Hold[],
  ) {
    super(ticket, permit);
  }

  finish(verdict: BreakerVerdict | undefined, actualTokens: number, spentUsd = 0): BreakerTransition | undefined {
    if (!this.firstFinish()) return undefined;
    try {
      if (verdict !== undefined) return this.breaker.record(this.ticket, verdict);
      this.breaker.releaseProbe(this.ticket);
      return undefined;
    } finally {
      for (const hold of this.holds) settleHold(hold, spentUsd);
      this.permit.settleAndRelease(actualTokens);
    }
  }
}

function budgetedKey(caller: Pick<Caller, 'key'> | undefined): BudgetedKey | undefined {
  const key = caller?.key;
  return key?.budget === undefined ? undefined : (key as BudgetedKey);
}
