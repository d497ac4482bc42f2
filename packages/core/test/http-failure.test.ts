import { describe, expect, it } from 'vitest';
import { redactSecret } from '../src/http-failure.js';

const API_KEY = 'sk-secret-Qm93xT';

describe('redactSecret', () => {
  it('replaces every occurrence with [redacted]', () => {
    expect(redactSecret(`a ${API_KEY} b Bearer ${API_KEY}`, API_KEY)).toBe('a [redacted] b Bearer [redacted]');
  });

  it('leaves the text alone without a secret', () => {
    expect(redactSecret('Bearer abc', undefined)).toBe('Bearer abc');
    expect(redactSecret('Bearer abc', '')).toBe('Bearer abc');
  });
});
