// STUB — being implemented (issue 2). Signatures are the contract.
import type { Usage } from './types.js';
/** USD per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}
export type PricingTable = Readonly<Record<string, ModelPrice>>;
export const DEFAULT_PRICING: PricingTable = {};
/** Validates a parsed pricing JSON document; throws RangeError naming the bad model/field. */
export function parsePricingTable(json: unknown, origin = 'pricing'): PricingTable {
  void origin;
  return json as PricingTable;
}
/** Cost of one usage at a model's price; undefined when the model has no price. */
export function costUsd(usage: Usage, model: string, table: PricingTable = DEFAULT_PRICING): number | undefined {
  void usage;
  void model;
  void table;
  return undefined;
}
