import type { Breaker, BreakerTicket, BreakerTransition, BreakerVerdict, Governor, GovernorRefusal, Lease, Limiter, Permit } from './ports.js';

/**
 * A Governor over a separately built limiter and breaker (say, quotas in Redis and breakers in
 * memory): the breaker's ticket, then the limiter's permit — two store operations each way where a
 * backend's own governor needs one. Transitions are the breaker's own answers. Closes neither part.
 */
export function governorOf(limiter: Limiter, breaker: Breaker): Governor {
  return {
    admit: (source, estTokens) => admitThroughBoth(limiter, breaker, source, estTokens),
    sourceStats: (source) => limiter.sourceStats(source),
  };
}

async function admitThroughBoth(limiter: Limiter, breaker: Breaker, source: string, estTokens: number): Promise<Lease | GovernorRefusal> {
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

class PortsLease implements Lease {
  readonly ok = true;
  readonly source: string;
  readonly estTokens: number;
  readonly transition: BreakerTransition | undefined;
  private finished = false;

  constructor(
    private readonly breaker: Breaker,
    private readonly ticket: BreakerTicket,
    private readonly permit: Permit,
  ) {
    this.source = ticket.source;
    this.estTokens = permit.estTokens;
    this.transition = ticket.transition;
  }

  /** The verdict and the permit's write-back run side by side: a verdict write that hangs holds no quota. */
  async finish(verdict: BreakerVerdict | undefined, actualTokens: number): Promise<BreakerTransition | undefined> {
    if (this.finished) return undefined;
    this.finished = true;
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
