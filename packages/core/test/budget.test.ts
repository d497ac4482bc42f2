/** Spend-budget arithmetic: UTC periods, nano-dollars, the worst case, the policy check and the error's fields. */
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, GatewayUnavailableError } from '../src/index.js';
import { assertBudgetPolicy, budgetPeriodAt, budgetUsdOf, toNanoUsd, worstCaseCostUsd } from '../src/internal.js';

describe('spend budgets', () => {
  it('periods are UTC calendar periods; total has no end', () => {
    const now = Date.UTC(2026, 11, 31, 23, 30);
    expect(budgetPeriodAt('hour', now)).toEqual({ start: Date.UTC(2026, 11, 31, 23), resetAt: Date.UTC(2027, 0, 1) });
    expect(budgetPeriodAt('day', now)).toEqual({ start: Date.UTC(2026, 11, 31), resetAt: Date.UTC(2027, 0, 1) });
    expect(budgetPeriodAt('month', now)).toEqual({ start: Date.UTC(2026, 11, 1), resetAt: Date.UTC(2027, 0, 1) });
    expect(budgetPeriodAt('total', now)).toEqual({ start: 0, resetAt: undefined });
  });

  it('nano-dollars round up, without float noise turning an exact amount into one more', () => {
    expect(toNanoUsd(0.3)).toBe(300_000_000);
    expect(toNanoUsd(0.1 + 0.2)).toBe(300_000_000);
    expect(toNanoUsd(1.5e-9)).toBe(2);
  });

  it('the worst case prices the answer at the higher of the output and reasoning prices', () => {
    expect(worstCaseCostUsd({ inputPerMTok: 1, outputPerMTok: 2 }, 1_000_000, 500_000)).toBe(2);
    expect(worstCaseCostUsd({ inputPerMTok: 1, outputPerMTok: 2, reasoningPerMTok: 4 }, 0, 1_000_000)).toBe(4);
  });

  it('a policy is checked, per-tenant amounts only per tenant', () => {
    expect(() => assertBudgetPolicy({ usd: 0, period: 'day', per: 'scope' })).toThrow(/budget\.usd/);
    expect(() => assertBudgetPolicy({ usd: 1, period: 'week' as 'day', per: 'scope' })).toThrow(/budget\.period/);
    expect(() => assertBudgetPolicy({ usd: 1, period: 'day', per: 'scope', tenants: { a: 2 } })).toThrow(/per = 'tenant'/);
    expect(() => assertBudgetPolicy({ usd: 1, period: 'day', per: 'tenant', tenants: { a: -2 } })).toThrow(/budget\.tenants\.a/);
    expect(budgetUsdOf({ usd: 1, period: 'day', per: 'tenant', tenants: { acme: 2 } }, 'acme')).toBe(2);
    expect(budgetUsdOf({ usd: 1, period: 'day', per: 'tenant', tenants: { acme: 2 } }, 'toString')).toBe(1);
  });

  it('BudgetExceededError carries its fields, retries after the reset, and is in no unavailable family', () => {
    const status = { scope: 'LLM', tenantId: 'acme', budgetUsd: 5, spentUsd: 4.9, reservedUsd: 0, resetAt: 1_000_000 };
    const error = new BudgetExceededError({ status, now: 400_000 });
    expect(error).toMatchObject({ name: 'BudgetExceededError', scope: 'LLM', tenantId: 'acme', budgetUsd: 5, spentUsd: 4.9, resetAt: 1_000_000, retryAfterMs: 600_000 });
    expect(error).not.toBeInstanceOf(GatewayUnavailableError);
    expect(new BudgetExceededError({ status: { ...status, resetAt: undefined }, now: 0 }).retryAfterMs).toBeUndefined();
    expect(error.keyId).toBeUndefined();
  });

  it('BudgetExceededError marks a key’s own budget with the key’s id', () => {
    const status = { scope: 'LLM', tenantId: 'acme', keyId: 'key_0123456789abcdef', budgetUsd: 1, spentUsd: 1, reservedUsd: 0, resetAt: undefined };
    const error = new BudgetExceededError({ status, now: 0 });
    expect(error).toMatchObject({ keyId: 'key_0123456789abcdef', tenantId: 'acme', budgetUsd: 1, retryAfterMs: undefined });
    expect(error.message).toContain('of key key_0123456789abcdef');
  });
});
