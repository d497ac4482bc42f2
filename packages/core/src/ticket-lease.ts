import type { BreakerTicket, BreakerTransition, BreakerVerdict, Lease, MaybePromise, Permit } from './ports.js';

/**
 * What every governor's lease carries, read once from its breaker ticket and its permit, and the
 * once-only rule of `finish`: a governor's lease extends it and writes only how it finishes.
 */
export abstract class TicketLease implements Lease {
  readonly ok = true;
  readonly source: string;
  readonly estTokens: number;
  readonly transition: BreakerTransition | undefined;
  #finished = false;

  constructor(ticket: BreakerTicket, permit: Permit) {
    this.source = ticket.source;
    this.estTokens = permit.estTokens;
    this.transition = ticket.transition;
  }

  abstract finish(verdict: BreakerVerdict | undefined, actualTokens: number, spentUsd?: number): MaybePromise<BreakerTransition | undefined>;

  /** True on the first call only: the finish that counts. */
  protected firstFinish(): boolean {
    if (this.#finished) return false;
    this.#finished = true;
    return true;
  }
}
