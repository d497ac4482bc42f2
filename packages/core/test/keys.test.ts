import { describe, expect, it } from 'vitest';
import { assertKeyBounds, KEY_BUDGET_WINDOWS, KEY_GATES, MAX_KEY_ID_LENGTH } from '../src/index.js';

const BOUNDS = { id: 'key_0123456789abcdef', rpm: 10, tpm: 0, maxConcurrency: 2 };

describe('key bounds', () => {
  it('names the gates and the budget windows of the contract', () => {
    expect(KEY_GATES).toEqual(['key_rpm', 'key_tpm', 'key_concurrency']);
    expect(KEY_BUDGET_WINDOWS).toEqual(['hour', 'day', 'month', 'total']);
  });

  it('accepts bounds with and without a budget', () => {
    expect(() => assertKeyBounds(BOUNDS)).not.toThrow();
    expect(() => assertKeyBounds({ ...BOUNDS, budget: { usd: 1, window: 'total' } })).not.toThrow();
  });

  it('refuses a wrong field with a TypeError naming it', () => {
    const cases: [unknown, RegExp][] = [
      [null, /^key must be an object/],
      [{ ...BOUNDS, id: '' }, /key\.id/],
      [{ ...BOUNDS, id: 'a b' }, /key\.id/],
      [{ ...BOUNDS, id: 'k'.repeat(MAX_KEY_ID_LENGTH + 1) }, /key\.id/],
      [{ ...BOUNDS, rpm: -1 }, /key\.rpm/],
      [{ ...BOUNDS, tpm: 1.5 }, /key\.tpm/],
      [{ ...BOUNDS, maxConcurrency: '2' }, /key\.maxConcurrency/],
      [{ ...BOUNDS, secret: 'pgw_sk_x' }, /key has no field 'secret'/],
      [{ ...BOUNDS, budget: { usd: 0, window: 'day' } }, /key\.budget\.usd/],
      [{ ...BOUNDS, budget: { usd: 1, window: 'week' } }, /key\.budget\.window/],
      [{ ...BOUNDS, budget: { usd: 1, window: 'day', per: 'x' } }, /key\.budget has no field 'per'/],
    ];
    for (const [bounds, message] of cases) expect(() => assertKeyBounds(bounds, 'key'), JSON.stringify(bounds)).toThrow(message);
    expect(() => assertKeyBounds({ ...BOUNDS, rpm: -1 }, 'chat(key)')).toThrow(TypeError);
    expect(() => assertKeyBounds({ ...BOUNDS, rpm: -1 }, 'chat(key)')).toThrow(/^chat\(key\)\.rpm/);
  });
});
