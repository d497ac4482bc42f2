import type { BreakerPolicy, GateOutcome, GateTicket, GovernedAdmission, Governor, Permit } from '@pgw/core';
import { InMemoryGate } from './gate.js';
import { InMemoryLimiter, type InMemoryLimiterOptions } from './limiter.js';

export type InMemoryGovernorOptions = InMemoryLimiterOptions & { policy: BreakerPolicy };

/**
 * The combined `Governor` capability over one process's breaker and limiter, answering synchronously.
 * In memory there is no round trip to save: it is the two ports' calls in order, which keeps the
 * middleware on one path for both backends. `limiter` and `gate` are the same books through the two ports.
 */
export class InMemoryGovernor implements Governor {
  readonly limiter: InMemoryLimiter;
  readonly gate: InMemoryGate;

  constructor(options: InMemoryGovernorOptions) {
    this.limiter = new InMemoryLimiter(options);
    this.gate = new InMemoryGate({ ...options, sources: Object.keys(options.sources) });
  }

  admit(source: string, estTokens: number): GovernedAdmission {
    const { gate } = this;
    const ticket = gate.tryAcquire(source);
    if (!ticket.ok) return { ok: false, refusal: ticket };
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
    return new GovernedAttempt(gate, ticket, entered);
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
  ) {}

  finish(verdict: GateOutcome | undefined, actualTokens: number): void {
    if (this.finished) return;
    this.finished = true;
    try {
      if (verdict === undefined) this.gate.releaseProbe(this.ticket);
      else this.gate.record(this.ticket, verdict);
    } finally {
      this.permit.settleAndRelease(actualTokens);
    }
  }
}
