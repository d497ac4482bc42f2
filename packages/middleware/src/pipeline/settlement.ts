import type { Usage } from '@pgw/core';

/** `tokens`: chat and embeddings are charged by usage; `none`: OCR has no tokens (a fact, not "unknown"). */
export type TokenAccounting = 'tokens' | 'none';

/** How an attempt ended, as far as its permit's charge is concerned. */
export type SettlementBranch = 'cancelled' | 'transient' | 'dead' | 'rejected' | 'invalid';

/**
 * The charge of each branch when usage is unknown (docs/architecture.md#settlement). Cancelled and transient keep the
 * reservation: the upstream may have billed it. A dead source, a bad request or a bad result give it back.
 */
const BRANCH_CHARGE: Record<SettlementBranch, 'est' | 'zero'> = {
  cancelled: 'est', // S3
  transient: 'est', // S5
  dead: 'zero', // S5
  rejected: 'zero', // S5
  invalid: 'zero', // S5
};

/**
 * What one attempt's permit is settled with. Decided only from what the library knows: known usage
 * (even exactly 0) is a fact and is never overwritten (S4); a failure branch fixes its value before its
 * first await (S5); nothing decided — an unclassified exception escaped — settles 0 (S8).
 */
export class Settlement {
  private known: number | undefined;
  /** What fixed `known`: a measured usage (priced for the budget), the reservation, or nothing. */
  private basis: Usage | 'est' | 'zero' | undefined;

  constructor(
    private readonly accounting: TokenAccounting,
    private readonly estTokens: number,
  ) {}

  /** Usage reported by the upstream (stream chunk or result); the latest report wins. */
  learnUsage(usage: Usage): void {
    if (this.accounting === 'none') return;
    const unavailable = usage.usageSource === 'unavailable';
    this.known = unavailable ? this.estTokens : usage.promptTokens + usage.completionTokens;
    this.basis = unavailable ? 'est' : usage;
  }

  /** Fixes the branch's value unless usage is already known. Call before the branch's first await. */
  decide(branch: SettlementBranch): void {
    if (this.known !== undefined) return;
    this.basis = this.accounting === 'none' || BRANCH_CHARGE[branch] === 'zero' ? 'zero' : 'est';
    this.known = this.basis === 'zero' ? 0 : this.estTokens;
  }

  /** The value handed to `permit.settle()`. */
  value(): number {
    return this.known ?? 0; // S8 (and S6: OCR is always 0)
  }

  /**
   * The same decision in dollars, for the spend budget: a measured usage at its billed cost
   * (`costOf`, the telemetry row's price), the reservation wherever the tokens keep theirs, else 0.
   */
  spentUsd(reservedUsd: number, costOf: (usage: Usage) => number | undefined): number {
    const { basis } = this;
    if (basis === undefined || basis === 'zero') return 0;
    if (basis === 'est') return reservedUsd;
    return costOf(basis) ?? reservedUsd;
  }
}
