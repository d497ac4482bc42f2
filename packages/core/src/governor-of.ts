import type { BudgetCharge } from './budget.js';
import type { Breaker, BreakerTicket, BreakerTransition, BreakerVerdict, Governor, GovernorRefusal, Lease, Limiter, Permit } from './ports.js';
import { TicketLease } from './ticket-lease.js';

/**
 * A Governor over a separately built limiter and breaker (say, quotas in Redis and breakers in
 * memory): the breaker's ticket, then the limiter's permit — two store operations each way where a
 * backend's own governor needs one. Transitions are the breaker's own answers. Closes neither part.
 * It keeps no spend budget (no `budgetStatus`; a pipeline with a budget refuses it), and an attempt
 * that brings a budget charge is refused with an error rather than admitted unbudgeted.
 */
export function governorOf(limiter: Limiter, breaker: Breaker): Governor {
  return {
    admit: (source, estTokens, _turn, charge) => admitThroughBoth(limiter, breaker, source, estTokens, charge),
    sourceStats: (source) => limiter.sourceStats(source),
    breakerSnapshot: (source) => breaker.snapshot(source),
  };
}

async function admitThroughBoth(
  limiter: Limiter,
  breaker: Breaker,
  source: string,
  estTokens: number,
  charge: BudgetCharge | undefined,
): Promise<Lease | GovernorRefusal> {
  if (charge !== undefined) {
    throw new RangeError(`governorOf(limiter, breaker) keeps no spend budget, so it cannot admit a budgeted attempt at source ${source}`);
  }
  const ticket = await breaker.tryAcquire(source);
  if (!ticket.ok) return { ok: false, refusal: ticket };
  try {
    const admission = await limiter.tryEnter(source, estTokens);
    if (admission.ok) return new PortsLease(breaker, ticket, admission.permit);
    await breaker.releaseProbe(ticket);
    const { gate, retryAfterMs } = admission;
    return { ok: false, gate, retryAfterMs, ...(ticket.transition && { transition: ticket.transition }) };
  } catch (error) {
    // The limiter failed after the breaker admitted: the probe lease goes back before the error propagates.
    await Promise.resolve(breaker.releaseProbe(ticket)).catch(() => undefined);
    throw error;
  }
}

class PortsLease extends TicketLease {
  constructor(
    private readonly breaker: Breaker,
    private readonly ticket: BreakerTicket,
    private readonly permit: Permit,
  ) {
    super(ticket, permit);
  }

  /** The verdict and the permit's write-back run side by side: a verdict write that hangs holds no quota. */
  async finish(verdict: BreakerVerdict | undefined, actualTokens: number): Promise<BreakerTransition | undefined> {
    if (!this.firstFinish()) return undefined;
    const { breaker, ticket } = this;
    const [recorded, settled] = await Promise.allSettled([
      verdict === undefined ? Promise.resolve(breaker.releaseProbe(ticket)).then(() => undefined) : Promise.resolve(breaker.record(ticket, verdict)),
      settleAndRelease(this.permit, actualTokens),
    ]);
    if (recorded.status === 'rejected') throw recorded.reason;
    if (settled.status === 'rejected') throw settled.reason;
    return recorded.value;
  }
}

/** In one operation when the permit offers one, else settle then release — the release even when the settle failed. */
async function settleAndRelease(permit: Permit, actualTokens: number): Promise<void> {
  if (permit.settleAndRelease) return permit.settleAndRelease(actualTokens);
  try {
    await permit.settle(actualTokens);
  } finally {
    await permit.release();
  }
}
