import { costUsd, findModelPrice, worstCaseCostUsd } from '@pgw/core/internal';
import type { BudgetCharge, ModelPrice, PricingTable, Source, Usage } from '@pgw/core';
import type { BudgetTokens } from './operation.js';

/**
 * A budgeted scope's prices: what an attempt reserves (its worst case) and what it cost (the
 * telemetry row's `cost_usd`, from core's pricing), each at the source's own price over the table's.
 */
export class BudgetPricing {
  constructor(private readonly pricing: PricingTable | undefined) {}

  /** A budget that cannot be kept is refused: throws RangeError naming the first source without a price. */
  assertPriced(sources: readonly Source[], scope: string): void {
    const unpriced = sources.find((source) => this.priceOf(source) === undefined);
    if (unpriced === undefined) return;
    throw new RangeError(
      `settings.budget: scope ${scope} has a spend budget but source '${unpriced.name}' (model ${unpriced.model.modelId}) has no price`,
    );
  }

  /**
   * A stored key's budget cannot be kept at a source without a price: the call fails (RangeError
   * naming the source and the key) rather than spend unbounded (docs/architecture.md#keys).
   */
  assertPricedFor(source: Source, keyId: string): void {
    if (this.priceOf(source) !== undefined) return;
    throw new RangeError(`key ${keyId} has a spend budget but source '${source.name}' (model ${source.model.modelId}) has no price`);
  }

  charge(source: Source, tokens: BudgetTokens, tenantId: string | undefined): BudgetCharge {
    const reserveUsd = worstCaseCostUsd(this.priceOf(source)!, tokens.promptTokens, tokens.maxOutputTokens ?? source.estTokens);
    return tenantId === undefined ? { reserveUsd } : { tenantId, reserveUsd };
  }

  costUsd(source: Source, usage: Usage): number | undefined {
    return costUsd(usage, source.model.modelId, this.pricing, source.price);
  }

  private priceOf(source: Source): ModelPrice | undefined {
    return source.price ?? findModelPrice(source.model.modelId, this.pricing);
  }
}
