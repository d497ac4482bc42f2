/** The `pgw keys` flags as body fields and back: the flag an API error's field names, the bodies, the expiry. */
import { describe, expect, test } from 'vitest';
import { parseExpiry } from '../src/flag-values.js';
import { createBody, flagOfParam, updateBody } from '../src/keys/key-flags.js';
import { UsageError } from '../src/usage-error.js';

describe('pgw keys flags', () => {
  test('the flag behind each field the API can name, an array item included; none for a field no flag sets', () => {
    expect(flagOfParam('limits.rpm')).toBe('--rpm');
    expect(flagOfParam('limits.maxConcurrency')).toBe('--max-concurrency');
    expect(flagOfParam('budget.window')).toBe('--budget-window');
    expect(flagOfParam('budget')).toBe('--budget-usd');
    expect(flagOfParam('models[3]')).toBe('--model');
    expect(flagOfParam('expiresAt')).toBe('--expires-at');
    expect(flagOfParam('graceS')).toBe('--grace-s');
    expect(flagOfParam('body')).toBeUndefined();
  });

  test('a create body has the tenant and only the fields given; a budget needs both halves', () => {
    expect(createBody({ tenant: 't' })).toEqual({ tenant: 't' });
    expect(createBody({ tenant: 't', maxConcurrency: 0 })).toEqual({ tenant: 't', limits: { maxConcurrency: 0 } });
    expect(() => createBody({ tenant: 't', budgetWindow: 'day' })).toThrow(UsageError);
  });

  test('an update clears with null, refuses a flag with its own negation, and refuses an empty change', () => {
    expect(updateBody({ expiry: false, budget: true })).toEqual({ expiresAt: null });
    expect(() => updateBody({ expiry: false, expiresAt: '2030-01-01T00:00:00.000Z' })).toThrow(/--no-expiry/);
    expect(() => updateBody({ allModels: true, model: ['m'] })).toThrow(/--all-models/);
    expect(() => updateBody({ expiry: true, budget: true })).toThrow(/nothing to change/);
  });

  test('an expiry is an ISO date/time (UTC unless zoned) or a duration from now', () => {
    const now = Date.UTC(2026, 11, 7, 5, 0, 0);
    expect(parseExpiry('12h', now)).toBe('2026-12-07T17:00:00.000Z');
    expect(parseExpiry('2027-01-31', now)).toBe('2027-01-31T00:00:00.000Z');
    expect(parseExpiry('2027-01-31T08:00+02:00', now)).toBe('2027-01-31T06:00:00.000Z');
    expect(() => parseExpiry('next week', now)).toThrow(/ISO date\/time/);
  });
});
