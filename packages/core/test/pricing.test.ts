import { describe, expect, it } from 'vitest';
import { costUsd, DEFAULT_PRICING, findModelPrice, parseModelPrice, parsePricingTable } from '../src/pricing.js';
import type { Usage } from '../src/types.js';

const usage = (promptTokens: number, completionTokens: number, extra: Partial<Usage> = {}): Usage => ({
  promptTokens,
  completionTokens,
  usageSource: 'measured',
  ...extra,
});

describe('DEFAULT_PRICING', () => {
  it('prices a handful of well-known models with valid entries', () => {
    expect(Object.keys(DEFAULT_PRICING)).toEqual(
      expect.arrayContaining(['gpt-4o', 'gpt-4o-mini', 'text-embedding-3-small', 'qwen-plus', 'deepseek-chat']),
    );
    expect(parsePricingTable(JSON.parse(JSON.stringify(DEFAULT_PRICING)))).toEqual(DEFAULT_PRICING);
    expect(Object.isFrozen(DEFAULT_PRICING)).toBe(true);
  });
});

describe('parsePricingTable', () => {
  it('accepts a valid table and freezes it', () => {
    const table = parsePricingTable({ 'my-model': { inputPerMTok: 1, outputPerMTok: 0 } }, 'LLM__PRICING_PATH');
    expect(table).toEqual({ 'my-model': { inputPerMTok: 1, outputPerMTok: 0 } });
    expect(Object.isFrozen(table)).toBe(true);
    expect(Object.isFrozen(table['my-model'])).toBe(true);
  });

  it.each([
    [null, /^LLM__PRICING_PATH must be a JSON object/],
    [[], /^LLM__PRICING_PATH must be a JSON object/],
    ['gpt-4o', /^LLM__PRICING_PATH must be a JSON object/],
    [{ 'gpt-x': 3 }, /'gpt-x' must be an object/],
    [{ '': { inputPerMTok: 1, outputPerMTok: 1 } }, /model name is empty/],
    [{ 'gpt-x': { inputPerMTok: 1 } }, /'gpt-x'\.outputPerMTok must be a finite number ≥ 0/],
    [{ 'gpt-x': { inputPerMTok: -1, outputPerMTok: 1 } }, /'gpt-x'\.inputPerMTok/],
    [{ 'gpt-x': { inputPerMTok: '1', outputPerMTok: 1 } }, /'gpt-x'\.inputPerMTok/],
    [{ 'gpt-x': { inputPerMTok: 1, outputPerMTok: Number.POSITIVE_INFINITY } }, /'gpt-x'\.outputPerMTok/],
    [{ 'gpt-x': { inputPerMTok: 1, outputPerMTok: 1, inputPerMtok: 2 } }, /'gpt-x' has unknown field 'inputPerMtok'/],
  ])('refuses %j with a RangeError naming origin and model/field', (json, message) => {
    expect(() => parsePricingTable(json, 'LLM__PRICING_PATH')).toThrow(RangeError);
    expect(() => parsePricingTable(json, 'LLM__PRICING_PATH')).toThrow(message);
  });

  it('takes the optional cached-input and reasoning prices', () => {
    const price = { inputPerMTok: 1, cachedInputPerMTok: 0.1, outputPerMTok: 4, reasoningPerMTok: 8 };
    expect(parsePricingTable({ m: price })).toEqual({ m: price });
    expect(() => parsePricingTable({ m: { ...price, cachedInputPerMTok: -1 } }, 'P')).toThrow(/'m'\.cachedInputPerMTok must be/);
    expect(() => parsePricingTable({ m: { ...price, reasoningPerMTok: null } }, 'P')).toThrow(/'m'\.reasoningPerMTok must be/);
  });

  it('keeps a model named __proto__ as data', () => {
    const table = parsePricingTable(JSON.parse('{"__proto__":{"inputPerMTok":1,"outputPerMTok":2}}'));
    expect(Object.getPrototypeOf(table)).toBe(Object.prototype);
    expect(findModelPrice('__proto__', table)).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
  });
});

describe('parseModelPrice', () => {
  it('names the origin and the misspelt field', () => {
    expect(() => parseModelPrice({ inputPerMTok: 1, outputPerMTok: 1, cachedInputPerMtok: 0 }, 'LLM__SOURCE__A__PRICING')).toThrow(
      "LLM__SOURCE__A__PRICING has unknown field 'cachedInputPerMtok'",
    );
    expect(() => parseModelPrice({ outputPerMTok: 1 }, 'K')).toThrow('K.inputPerMTok must be a finite number ≥ 0');
    expect(() => parseModelPrice([], 'K')).toThrow(/^K must be an object of inputPerMTok/);
    expect(Object.isFrozen(parseModelPrice({ inputPerMTok: 0, outputPerMTok: 0 }))).toBe(true);
  });
});

describe('costUsd: cached and reasoning tokens', () => {
  const price = { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15, reasoningPerMTok: 20 };
  const table = parsePricingTable({ m: price, plain: { inputPerMTok: 3, outputPerMTok: 15 } });

  it('prices uncached input, cached input, visible output and reasoning at their own prices, exact to the token', () => {
    const cost = costUsd(usage(10_000, 2_000, { cachedPromptTokens: 8_000, reasoningTokens: 500 }), 'm', table)!;
    // 2000 × 3 + 8000 × 0.3 + 1500 × 15 + 500 × 20 = 6000 + 2400 + 22500 + 10000 = 40900 µ$·M
    expect(cost).toBeCloseTo(0.0409, 12);
    // One more cached token (one fewer uncached) saves exactly (3 − 0.3) / 1M.
    const oneMore = costUsd(usage(10_000, 2_000, { cachedPromptTokens: 8_001, reasoningTokens: 500 }), 'm', table)!;
    expect(cost - oneMore).toBeCloseTo(2.7e-6, 15);
  });

  it('defaults the cached price to the input price and the reasoning price to the output price', () => {
    const withDetails = costUsd(usage(1000, 1000, { cachedPromptTokens: 900, reasoningTokens: 800 }), 'plain', table);
    expect(withDetails).toBeCloseTo(costUsd(usage(1000, 1000), 'plain', table)!, 15);
  });

  it('caps a cached or reasoning count larger than its whole: nothing is counted twice or negative', () => {
    expect(costUsd(usage(100, 10, { cachedPromptTokens: 500, reasoningTokens: 50 }), 'm', table)).toBeCloseTo(
      (100 * 0.3 + 10 * 20) / 1e6,
      15,
    );
  });

  it('prices prompt tokens written to the cache at the cache-write price, a part of the prompt tokens', () => {
    const anthropic = parsePricingTable({ c: { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWriteInputPerMTok: 3.75, outputPerMTok: 15 } });
    // 1000 uncached × 3 + 500 cached × 0.3 + 2000 written × 3.75 + 100 × 15 = 3000 + 150 + 7500 + 1500
    expect(costUsd(usage(3_500, 100, { cachedPromptTokens: 500, cacheWritePromptTokens: 2_000 }), 'c', anthropic)).toBeCloseTo(12_150 / 1e6, 15);
    // Without a cache-write price a written token costs the input price; more writes than prompt are capped.
    expect(costUsd(usage(1000, 0, { cacheWritePromptTokens: 400 }), 'plain', table)).toBeCloseTo(3000 / 1e6, 15);
    expect(costUsd(usage(1000, 0, { cachedPromptTokens: 600, cacheWritePromptTokens: 900 }), 'c', anthropic)).toBeCloseTo((600 * 0.3 + 400 * 3.75) / 1e6, 15);
    expect(() => parseModelPrice({ inputPerMTok: 1, outputPerMTok: 1, cacheWriteInputPerMTok: -1 }, 'K')).toThrow('K.cacheWriteInputPerMTok must be');
  });

  it('knows the Anthropic models: cache reads at a tenth, cache writes at 1.25 times the input price', () => {
    expect(findModelPrice('claude-sonnet-4-5-20250929')).toEqual({ inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWriteInputPerMTok: 3.75, outputPerMTok: 15 });
  });

  it('a source price wins over the table', () => {
    const sourcePrice = { inputPerMTok: 0, outputPerMTok: 1 };
    expect(costUsd(usage(1000, 1000), 'm', table, sourcePrice)).toBeCloseTo(0.001, 15);
    expect(costUsd(usage(1000, 1000), 'unknown-model', table, sourcePrice)).toBeCloseTo(0.001, 15);
    expect(costUsd(usage(0, 0, { usageSource: 'unavailable' }), 'm', table, sourcePrice)).toBeUndefined();
  });
});

describe('costUsd', () => {
  const table = parsePricingTable({
    'gpt-4': { inputPerMTok: 30, outputPerMTok: 60 },
    'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
    'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  });

  it('is prompt × input + completion × output, per million tokens', () => {
    expect(costUsd(usage(1_000_000, 500_000), 'gpt-4o', table)).toBeCloseTo(2.5 + 5, 10);
    expect(costUsd(usage(1000, 200), 'gpt-4o-mini', table)).toBeCloseTo((1000 * 0.15 + 200 * 0.6) / 1e6, 15);
  });

  it('does not add reasoning tokens again: they are part of completion tokens', () => {
    expect(costUsd(usage(0, 1000, { reasoningTokens: 800 }), 'gpt-4o', table)).toBeCloseTo(0.01, 12);
  });

  it('uses the default table when none is given', () => {
    expect(costUsd(usage(1_000_000, 0), 'gpt-4o')).toBe(DEFAULT_PRICING['gpt-4o']!.inputPerMTok);
  });

  it('prices an estimated usage, not an unavailable one', () => {
    expect(costUsd(usage(1000, 0, { usageSource: 'estimated' }), 'gpt-4o', table)).toBeGreaterThan(0);
    expect(costUsd(usage(0, 0, { usageSource: 'unavailable' }), 'gpt-4o', table)).toBeUndefined();
  });

  it('is undefined for an unknown model', () => {
    expect(costUsd(usage(10, 10), 'llama-3-70b', table)).toBeUndefined();
  });

  it.each([
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['GPT-4o', 'gpt-4o'],
    ['gpt-4-0613', 'gpt-4'],
    ['gpt-4o:latest', 'gpt-4o'],
  ])('prices %s as %s (exact, else the longest prefix ending at a separator)', (model, key) => {
    expect(findModelPrice(model, table)).toBe(table[key]);
  });

  it.each(['gpt-4omni', 'gpt', 'gpt-4.1'])('does not price %s by an unrelated prefix', (model) => {
    expect(findModelPrice(model, table)).toBeUndefined();
  });
});

describe('findModelPrice: remembered answers', () => {
  it('answers a repeated lookup on a frozen table as the first time, a miss included', () => {
    const table = parsePricingTable({ 'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 } });
    for (let round = 0; round < 3; round += 1) {
      expect(findModelPrice('GPT-4o-2024-08-06', table)).toBe(table['gpt-4o']);
      expect(findModelPrice('gpt-4omni', table)).toBeUndefined();
    }
  });

  it('stays exact past its bound (over a thousand distinct model names)', () => {
    const table = parsePricingTable({ m: { inputPerMTok: 1, outputPerMTok: 1 } });
    for (let i = 0; i < 2500; i += 1) {
      expect(findModelPrice(i % 2 === 0 ? `m-${i}` : `n-${i}`, table)).toBe(i % 2 === 0 ? table['m'] : undefined);
    }
  });

  it('scans a table that is not frozen every time, so a change to it is seen', () => {
    const table: Record<string, { inputPerMTok: number; outputPerMTok: number }> = {};
    expect(findModelPrice('late-model', table)).toBeUndefined();
    table['late-model'] = { inputPerMTok: 1, outputPerMTok: 2 };
    expect(findModelPrice('late-model', table)).toBe(table['late-model']);
  });
});
