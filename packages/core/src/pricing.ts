/**
 * Per-model prices and the cost of one usage (the `cost_usd` telemetry column). Core reads no
 * files: the client reads `PRICING_PATH` and hands the parsed JSON to `parsePricingTable`.
 */
import type { Usage } from './types.js';

/** USD per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  /** Prompt tokens served from the upstream's prompt cache. Default: `inputPerMTok`. */
  cachedInputPerMTok?: number;
  /** Prompt tokens written to the upstream's prompt cache (Anthropic bills them above the input price). Default: `inputPerMTok`. */
  cacheWriteInputPerMTok?: number;
  outputPerMTok: number;
  /** Reasoning tokens (a part of the completion tokens). Default: `outputPerMTok`. */
  reasoningPerMTok?: number;
}
export type PricingTable = Readonly<Record<string, ModelPrice>>;

/**
 * Illustrative list prices (USD per 1M tokens) of a few well-known models, so a demo shows a
 * cost out of the box. Prices change and differ per relay: real deployments set `PRICING_PATH`.
 */
export const DEFAULT_PRICING: PricingTable = Object.freeze({
  'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
  'text-embedding-3-small': { inputPerMTok: 0.02, outputPerMTok: 0 },
  'text-embedding-3-large': { inputPerMTok: 0.13, outputPerMTok: 0 },
  'qwen-plus': { inputPerMTok: 0.4, cachedInputPerMTok: 0.08, outputPerMTok: 1.2 },
  'qwen-max': { inputPerMTok: 1.6, cachedInputPerMTok: 0.32, outputPerMTok: 6.4 },
  'deepseek-chat': { inputPerMTok: 0.27, cachedInputPerMTok: 0.07, outputPerMTok: 1.1 },
  'deepseek-reasoner': { inputPerMTok: 0.55, cachedInputPerMTok: 0.14, outputPerMTok: 2.19 },
  // Anthropic: a cache read costs a tenth of the input price, a (5-minute) cache write 1.25 times it.
  'claude-opus-4-1': { inputPerMTok: 15, cachedInputPerMTok: 1.5, cacheWriteInputPerMTok: 18.75, outputPerMTok: 75 },
  'claude-sonnet-4-5': { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWriteInputPerMTok: 3.75, outputPerMTok: 15 },
  'claude-haiku-4-5': { inputPerMTok: 1, cachedInputPerMTok: 0.1, cacheWriteInputPerMTok: 1.25, outputPerMTok: 5 },
});

const REQUIRED_FIELDS = ['inputPerMTok', 'outputPerMTok'] as const;
const OPTIONAL_FIELDS = ['cachedInputPerMTok', 'cacheWriteInputPerMTok', 'reasoningPerMTok'] as const;
const PRICE_FIELDS: readonly string[] = [...REQUIRED_FIELDS, ...OPTIONAL_FIELDS];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates one price `{ inputPerMTok, outputPerMTok, cachedInputPerMTok?, reasoningPerMTok? }`
 * (finite prices ≥ 0, no other field: a misspelt field is an error, not a silent default) and
 * freezes it. Throws RangeError naming `origin` and the bad field.
 */
export function parseModelPrice(json: unknown, origin = 'price'): ModelPrice {
  if (!isPlainObject(json)) throw new RangeError(`${origin} must be an object of ${PRICE_FIELDS.join(', ')}`);
  const unknown = Object.keys(json).find((k) => !PRICE_FIELDS.includes(k));
  if (unknown !== undefined) throw new RangeError(`${origin} has unknown field '${unknown}'`);
  const field = (name: string): number => {
    const value = json[name];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    throw new RangeError(`${origin}.${name} must be a finite number ≥ 0 (USD per 1M tokens)`);
  };
  const price: ModelPrice = { inputPerMTok: field('inputPerMTok'), outputPerMTok: field('outputPerMTok') };
  for (const name of OPTIONAL_FIELDS) if (json[name] !== undefined) price[name] = field(name);
  return Object.freeze(price);
}

/**
 * Validates a parsed pricing JSON document `{ "<model>": <price> }` (each price as `parseModelPrice`
 * takes it). Throws RangeError naming `origin` and the bad model/field.
 */
export function parsePricingTable(json: unknown, origin = 'pricing'): PricingTable {
  if (!isPlainObject(json)) throw new RangeError(`${origin} must be a JSON object of model → price`);
  const entries: Array<[string, ModelPrice]> = [];
  for (const [model, price] of Object.entries(json)) {
    if (model.trim() === '') throw new RangeError(`${origin}: a model name is empty`);
    entries.push([model, parseModelPrice(price, `${origin}: '${model}'`)]);
  }
  // fromEntries defines own properties: a model named `__proto__` cannot reach the prototype.
  return Object.freeze(Object.fromEntries(entries));
}

/** Characters that may follow a table key in a dated or tagged model name (`gpt-4o-2024-08-06`, `qwen-plus:latest`). */
const VARIANT_SEPARATORS = new Set(['-', ':', '@']);

/**
 * Remembered answers per table. Only frozen tables (the built-in one, parsed ones) are memoised: a
 * table that may still change is scanned every time.
 */
const memos = new WeakMap<PricingTable, Map<string, ModelPrice | undefined>>();
const PRICE_MEMO_LIMIT = 1024;

/**
 * The price of `model`: the exact name, else the longest key that is a prefix of it ending at a
 * variant separator (so `gpt-4o-2024-08-06` is `gpt-4o`, but `gpt-4o` is never priced as `gpt-4`).
 * Names compare case-insensitively. Answers for a frozen table are remembered (see `memos`): the
 * governed call path prices every attempt.
 */
export function findModelPrice(model: string, table: PricingTable = DEFAULT_PRICING): ModelPrice | undefined {
  if (!Object.isFrozen(table)) return scanForPrice(model, table);
  let memo = memos.get(table);
  if (memo === undefined) {
    memo = new Map();
    memos.set(table, memo);
  }
  if (memo.has(model)) return memo.get(model);
  const price = scanForPrice(model, table);
  // Model names come from upstream answers too: the memo is bounded, and simply starts over when full.
  if (memo.size >= PRICE_MEMO_LIMIT) memo.clear();
  memo.set(model, price);
  return price;
}

function scanForPrice(model: string, table: PricingTable): ModelPrice | undefined {
  const name = model.toLowerCase();
  let best: { length: number; price: ModelPrice } | undefined;
  for (const [key, price] of Object.entries(table)) {
    const k = key.toLowerCase();
    if (k === name) return price;
    const isVariant = name.startsWith(k) && VARIANT_SEPARATORS.has(name.charAt(k.length));
    if (isVariant && (best === undefined || k.length > best.length)) best = { length: k.length, price };
  }
  return best?.price;
}

/**
 * Cost in USD of one usage, exact to the token: uncached prompt × input price + cached prompt ×
 * cached input price + prompt written to the cache × cache-write price + (completion − reasoning)
 * × output price + reasoning × reasoning price. Cached and cache-written tokens are parts of the
 * prompt tokens and reasoning tokens a part of the completion tokens (the OpenAI convention, which
 * DeepSeek and Qwen follow): none is counted twice, and a count larger than its whole is capped at it. `sourcePrice` (a source's own price) wins over the
 * table. Undefined when there is no price or the usage is `unavailable` (unknown is not free); an
 * `estimated` usage gives an estimated cost.
 */
export function costUsd(
  usage: Usage,
  model: string,
  table: PricingTable = DEFAULT_PRICING,
  sourcePrice?: ModelPrice,
): number | undefined {
  const price = billedPrice(usage, model, table, sourcePrice);
  if (price === undefined) return undefined;
  const cached = cachedPart(usage);
  const written = Math.min(usage.cacheWritePromptTokens ?? 0, usage.promptTokens - cached);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.completionTokens);
  const usdPerMillion =
    (usage.promptTokens - cached - written) * price.inputPerMTok +
    cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    written * (price.cacheWriteInputPerMTok ?? price.inputPerMTok) +
    (usage.completionTokens - reasoning) * price.outputPerMTok +
    reasoning * (price.reasoningPerMTok ?? price.outputPerMTok);
  return usdPerMillion / 1_000_000;
}

/**
 * What the prompt cache saved on one usage: cached prompt tokens × (input − cached input price).
 * Undefined exactly when `costUsd` is (the `cache_saving_usd` telemetry column).
 */
export function cacheSavingUsd(
  usage: Usage,
  model: string,
  table: PricingTable = DEFAULT_PRICING,
  sourcePrice?: ModelPrice,
): number | undefined {
  const price = billedPrice(usage, model, table, sourcePrice);
  if (price === undefined) return undefined;
  return (cachedPart(usage) * (price.inputPerMTok - (price.cachedInputPerMTok ?? price.inputPerMTok))) / 1_000_000;
}

/** The price a usage is billed at; none for an `unavailable` usage (unknown is not free). */
function billedPrice(usage: Usage, model: string, table: PricingTable, sourcePrice: ModelPrice | undefined): ModelPrice | undefined {
  if (usage.usageSource === 'unavailable') return undefined;
  return sourcePrice ?? findModelPrice(model, table);
}

/** Cached prompt tokens, never more than the prompt tokens they are a part of. */
function cachedPart(usage: Usage): number {
  return Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
}
