import type { BreakerPolicy, GateOutcome, GovernedAdmission, Governor } from '@pgw/core';
import { InMemoryGate } from './gate.js';
import { InMemoryLimiter, type InMemoryLimiterOptions } from './limiter.js';

export type InMemoryGovernorOptions = InMemoryLimiterOptions & { policy: BreakerPolicy };

/**
 * The combined `Governor` capability over one process's breaker and limiter. In memory there is no
 * round trip to save: it is the two ports' calls in order, which keeps the middleware on one path
 * for both backends. `limiter` and `gate` are the same books through the two ports.
 */
export class InMemoryGovernor implements Governor {
  readonly limiter: InMemoryLimiter;
  readonly gate: InMemoryGate;

  constructor(options: InMemoryGovernorOptions) {
    this.limiter = new InMemoryLimiter(options);
    this.gate = new InMemoryGate({ ...options, sources: Object.keys(options.sources) });
  }

  async admit(source: string, estTokens: number): Promise<GovernedAdmission> {
    const { gate, limiter } = this;
    const ticket = await gate.tryAcquire(source);
    if (!ticket.ok) return { ok: false, refusal: ticket };
    const admission = await limiter.tryEnter(source, estTokens).catch(async (error: unknown) => {
      await gate.releaseProbe(ticket);
      throw error;
    });
    if (!admission.ok) {
      await gate.releaseProbe(ticket);
      return admission;
    }
    const { permit } = admission;
    let finished = false;
    const finish = async (verdict: GateOutcome | undefined, actualTokens: number): Promise<void> => {
      if (finished) return;
      finished = true;
      try {
        if (verdict === undefined) await gate.releaseProbe(ticket);
        else await gate.record(ticket, verdict);
      } finally {
        try {
          await permit.settle(actualTokens);
        } finally {
          await permit.release();
        }
      }
    };
    return { ok: true, ticket, permit, finish };
  }
}
