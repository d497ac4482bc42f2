import { assertBudgetPolicy } from '@pgw/core/internal';
import type { BreakerPolicy, BudgetCharge, BudgetPolicy, BudgetStatus, Clock, GateOutcome, GateTicket, GovernedAdmission, Governor, Permit } from '@pgw/core';
import { BudgetBook, settleHold, type Hold } from './budget-book.js';
import { InMemoryGate } from './gate.js';
import { InMemoryLimiter, type InMemoryLimiterOptions } from './limiter.js';

export type InMemoryGovernorOptions = InMemoryLimiterOptions & { policy: BreakerPolicy; budget?: BudgetPolicy };

/**
 * The combined `Governor` capability over one process's breaker and limiter, answering synchronously.
 * In memory there is no round trip to save: it is the two ports' calls in order, which keeps the
 * middleware on one path for both backends. `limiter` and `gate` are the same books through the two ports.
 */
export class InMemoryGovernor implements Governor {
  readonly limiter: InMemoryLimiter;
  readonly gate: InMemoryGate;
  readonly #budget: BudgetBook | undefined;
  readonly #now: Clock;

  constructor(options: InMemoryGovernorOptions) {
    this.limiter = new InMemoryLimiter(options);
    this.gate = new InMemoryGate({ ...options, sources: Object.keys(options.sources) });
    this.#now = options.now ?? Date.now;
    if (options.budget) assertBudgetPolicy(options.budget);
    this.#budget = options.budget && new BudgetBook({ scope: options.scope, policy: options.budget, leaseTtlMs: options.leaseTtlMs });
  }

  admit(source: string, estTokens: number, _turn?: string, charge?: BudgetCharge): GovernedAdmission {
    const { gate } = this;
    const ticket = gate.tryAcquire(source);
    if (!ticket.ok) return { ok: false, refusal: ticket };
    const budget = charge && this.#budget;
    const refused = budget && budget.check(charge, this.#now());
    if (refused) {
      gate.releaseProbe(ticket);
      return { ok: false, budget: refused };
    }
    let entered: ReturnType<InMemoryLimiter['enter']>;
    try {
      entered = this.limiter.enter(source, estTokens);
    } catch (error) {
      gate.releaseProbe(ticket);
      throw error;
    }
    if ('gate' in entered) {
      gate.releaseProbe(ticket);
      return entered;
    }
    return new GovernedAttempt(gate, ticket, entered, budget ? budget.reserve(charge, this.#now()) : undefined);
  }

  budgetStatus(tenantId?: string): BudgetStatus | undefined {
    return this.#budget?.status(tenantId, this.#now());
  }
}

/** One admitted attempt: `finish` is a method, not a closure per admission. */
class GovernedAttempt {
  readonly ok = true;
  private finished = false;

  constructor(
    private readonly gate: InMemoryGate,
    readonly ticket: GateTicket,
    readonly permit: Permit & { settleAndRelease(actualTokens: number): void },
    private readonly hold: Hold | undefined,
  ) {}

  finish(verdict: GateOutcome | undefined, actualTokens: number, spentUsd = 0): void {
    if (this.finished) return;
    this.finished = true;
    try {
      if (verdict === undefined) this.gate.releaseProbe(this.ticket);
      else this.gate.record(this.ticket, verdict);
    } finally {
      if (this.hold) settleHold(this.hold, spentUsd);
      this.permit.settleAndRelease(actualTokens);
    }
  }
}
