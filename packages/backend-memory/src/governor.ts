import type { BreakerPolicy, BreakerTicket, BreakerTransition, BreakerVerdict, Governor, GovernorRefusal, Lease, Permit, SourceStats } from '@pgw/core';
import { InMemoryBreaker } from './breaker.js';
import { InMemoryLimiter, type InMemoryLimiterOptions } from './limiter.js';

export type InMemoryGovernorOptions = InMemoryLimiterOptions & { policy: BreakerPolicy };

/**
 * One process's breakers and six gates behind the `Governor` port, answering synchronously. As in
 * Redis, the gates are asked before a probe lease is taken, so a quota refusal leaves the breaker
 * untouched. `limiter` and `breaker` are the same books seen whole (stats, snapshots, tests).
 */
export class InMemoryGovernor implements Governor {
  readonly limiter: InMemoryLimiter;
  readonly breaker: InMemoryBreaker;

  constructor(options: InMemoryGovernorOptions) {
    this.limiter = new InMemoryLimiter(options);
    this.breaker = new InMemoryBreaker({ ...options, sources: Object.keys(options.sources) });
  }

  admit(source: string, estTokens: number): Lease | GovernorRefusal {
    const refusal = this.breaker.refusal(source);
    if (refusal) return { ok: false, refusal };
    const entered = this.limiter.enter(source, estTokens);
    if ('gate' in entered) return entered;
    return new InMemoryLease(this.breaker, this.breaker.acquire(source), entered);
  }

  sourceStats(source: string): SourceStats {
    return this.limiter.sourceStats(source);
  }
}

/** One admitted attempt: `finish` is a method, not a closure per admission. */
class InMemoryLease implements Lease {
  readonly ok = true;
  readonly source: string;
  readonly estTokens: number;
  readonly transition: BreakerTransition | undefined;
  private finished = false;

  constructor(
    private readonly breaker: InMemoryBreaker,
    private readonly ticket: BreakerTicket,
    private readonly permit: Permit & { settleAndRelease(actualTokens: number): void },
  ) {
    this.source = ticket.source;
    this.estTokens = permit.estTokens;
    this.transition = ticket.transition;
  }

  finish(verdict: BreakerVerdict | undefined, actualTokens: number): BreakerTransition | undefined {
    if (this.finished) return undefined;
    this.finished = true;
    try {
      if (verdict !== undefined) return this.breaker.record(this.ticket, verdict);
      this.breaker.releaseProbe(this.ticket);
      return undefined;
    } finally {
      this.permit.settleAndRelease(actualTokens);
    }
  }
}
