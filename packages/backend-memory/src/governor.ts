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
  Lease,
  Permit,
  SourceStats,
  TenantUse,
} from '@pgw/core';
import { InMemoryBreaker } from './breaker.js';
import { BudgetBook, settleHold, type Hold } from './budget-book.js';
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
  readonly #now: Clock;

  constructor(options: InMemoryGovernorOptions) {
    this.limiter = new InMemoryLimiter(options);
    this.breaker = new InMemoryBreaker({ ...options, sources: Object.keys(options.sources) });
    this.#now = options.now ?? Date.now;
    if (options.budget) assertBudgetPolicy(options.budget);
    this.#budget = options.budget && new BudgetBook({ scope: options.scope, policy: options.budget, leaseTtlMs: options.leaseTtlMs });
  }

  admit(source: string, estTokens: number, _turn?: string, charge?: BudgetCharge, caller?: Caller): Lease | GovernorRefusal {
    const refusal = this.breaker.refusal(source);
    if (refusal) return { ok: false, refusal };
    const budget = charge && this.#budget;
    const spent = budget && budget.check(charge, this.#now());
    if (spent) return { ok: false, budget: spent };
    const entered = this.limiter.enter(source, estTokens, caller);
    if ('gate' in entered) return entered;
    const ticket = this.breaker.acquire(source);
    return new InMemoryLease(this.breaker, ticket, entered, budget ? budget.reserve(charge, this.#now()) : undefined);
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
}

/** One admitted attempt, built per admission: `finish` is a method (docs/decisions.md#lean-hot-path). */
class InMemoryLease extends TicketLease {
  constructor(
    private readonly breaker: InMemoryBreaker,
    private readonly ticket: BreakerTicket,
    private readonly permit: Permit & { settleAndRelease(actualTokens: number): void },
    private readonly hold: Hold | undefined,
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
      if (this.hold) settleHold(this.hold, spentUsd);
      this.permit.settleAndRelease(actualTokens);
    }
  }
}
