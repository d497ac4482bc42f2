/** How the console writes bounds, dollars, chart numbers, errors and breakers. */
import { describe, expect, it } from 'vitest';
import { bound, breakerText, chartNumber, errorsText, resetText, usd } from '../src/console/browser/format.js';

describe('the console formats', () => {
  it('writes a gate as used / bound, or says it has none', () => {
    expect(bound({ used: 3, bound: 10 })).toBe('3 / 10');
    expect(bound({ used: 3, bound: 0 })).toBe('3 (no bound)');
  });

  it('writes dollars with four decimals under one and two from one', () => {
    expect([0, 0.00012, 0.5, 1, 12.345].map(usd)).toEqual(['$0.0000', '$0.0001', '$0.5000', '$1.00', '$12.35']);
  });

  it('writes a chart number whole from 100, with one decimal from 10 and two below', () => {
    expect([0, 1.234, 10, 99.94, 100, 1234.5].map(chartNumber)).toEqual(['0.00', '1.23', '10.0', '99.9', '100', '1235']);
  });

  it('lists recent errors by class and count, or a dash', () => {
    expect(errorsText([])).toBe('—');
    expect(errorsText([{ errorClass: 'A', count: 2 }, { errorClass: 'B', count: 1 }])).toBe('A ×2, B ×1');
  });

  it('shows an open breaker with the whole seconds left, rounded up; any other state as it is', () => {
    expect(breakerText({ state: 'open', openUntil: 10_001 }, 0)).toBe('open · 11 s left');
    expect(breakerText({ state: 'open', openUntil: 1_000 }, 1_000)).toBe('open');
    expect(breakerText({ state: 'half_open', openUntil: 5_000 }, 0)).toBe('half_open');
  });

  it('says a budget without a reset time never resets', () => {
    expect(resetText(undefined)).toBe('never (total)');
    expect(resetText(null)).toBe('never (total)');
    expect(resetText(0)).toBe(new Date(0).toLocaleString());
  });
});
