import { describe, expect, it, vi } from 'vitest';
import { estimateTokens, parseRetryAfter, summarizeBody } from '../src/http-helpers.js';

describe('summarizeBody', () => {
  it('folds every whitespace run to one space and trims', () => {
    expect(summarizeBody('  {\n\t"error":   "bad"\r\n}  ')).toBe('{ "error": "bad" }');
  });

  it('keeps a short body whole', () => {
    expect(summarizeBody('x'.repeat(2048))).toHaveLength(2048);
  });

  it('keeps head and tail of a long body within max', () => {
    const body = `{"message":"${'a'.repeat(5000)}","code":"insufficient_quota","request_id":"req-42"}`;
    const summary = summarizeBody(body);
    expect(summary.length).toBeLessThanOrEqual(2048);
    expect(summary.length).toBeGreaterThan(2040);
    expect(summary.startsWith('{"message":"aaa')).toBe(true);
    expect(summary.endsWith('"code":"insufficient_quota","request_id":"req-42"}')).toBe(true);
    expect(summary).toContain(' … ');
  });

  it('honours a custom max', () => {
    const summary = summarizeBody('0123456789'.repeat(10), 21);
    expect(summary).toBe('012345678 … 123456789');
    expect(summary).toHaveLength(21);
  });

  it('never splits a surrogate pair at the cut', () => {
    const summary = summarizeBody('😀'.repeat(100), 50);
    expect(summary.length).toBeLessThanOrEqual(50);
    expect(() => encodeURIComponent(summary)).not.toThrow();
  });

  it('refuses a max that is not a positive integer', () => {
    expect(() => summarizeBody('x', 0)).toThrow(/summarizeBody\(max\)/);
  });
});

describe('parseRetryAfter', () => {
  const NOW = Date.parse('2030-01-01T00:00:00Z');

  function parse(headers: Parameters<typeof parseRetryAfter>[0]): { ms: number | undefined; warnings: string[] } {
    const warnings: string[] = [];
    const ms = parseRetryAfter(headers, { sourceName: 'relay_a', warn: (m) => warnings.push(m), now: () => NOW });
    return { ms, warnings };
  }

  it.each([
    ['5', 5000],
    ['2.5', 2500],
    [' 7 ', 7000],
    ['0.0001', 1],
    ['3600', 3_600_000],
  ])('retry-after seconds %j → %d ms', (value, ms) => {
    expect(parse({ 'retry-after': value })).toEqual({ ms, warnings: [] });
  });

  it.each(['inf', '-inf', 'INF', '+Inf', '1e999', '-1e999', 'Infinity', 'infinity', '-Infinity'])(
    'non-finite %j → no hint and exactly one warning without the raw value',
    (value) => {
      const { ms, warnings } = parse({ 'retry-after': value });
      expect(ms).toBeUndefined();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('retry_after_not_finite');
      expect(warnings[0]).toContain('relay_a');
      expect(warnings[0]!.toLowerCase()).not.toContain(value.toLowerCase());
    },
  );

  it.each(['nan', 'NaN', '', '   ', '-5', '0', '0.0', 'soon', '5s', '0x10', '1,5', 'Wed, 32 Foo 2015'])(
    '%j → no hint, silently',
    (value) => {
      expect(parse({ 'retry-after': value })).toEqual({ ms: undefined, warnings: [] });
    },
  );

  it('no header → no hint', () => {
    expect(parse({})).toEqual({ ms: undefined, warnings: [] });
  });

  it.each([
    ['IMF-fixdate', 'Tue, 01 Jan 2030 00:00:30 GMT'],
    ['RFC 850', 'Tuesday, 01-Jan-30 00:00:30 GMT'],
    ['asctime (means GMT)', 'Tue Jan  1 00:00:30 2030'],
  ])('an HTTP-date in the future (%s) → ms until it', (_form, value) => {
    expect(parse({ 'retry-after': value })).toEqual({ ms: 30_000, warnings: [] });
  });

  it('an HTTP-date in the past → no hint', () => {
    expect(parse({ 'retry-after': 'Mon, 31 Dec 2029 23:59:00 GMT' })).toEqual({ ms: undefined, warnings: [] });
  });

  it('uses Date.now when no clock is given', () => {
    const future = new Date(Date.now() + 60_000).toUTCString();
    const ms = parseRetryAfter({ 'retry-after': future }, { sourceName: 's', warn: () => {} });
    expect(ms).toBeGreaterThan(50_000);
    expect(ms).toBeLessThanOrEqual(60_000);
  });

  it('retry-after-ms wins over retry-after', () => {
    expect(parse({ 'retry-after-ms': '1500', 'retry-after': '5' }).ms).toBe(1500);
    expect(parse({ 'retry-after-ms': '12.2' }).ms).toBe(13);
  });

  it.each(['0', '-3', 'nan', 'soon', ''])('an invalid retry-after-ms %j falls back silently', (value) => {
    expect(parse({ 'retry-after-ms': value, 'retry-after': '5' })).toEqual({ ms: 5000, warnings: [] });
  });

  it('a non-finite retry-after-ms falls back to retry-after with one warning', () => {
    const { ms, warnings } = parse({ 'retry-after-ms': 'inf', 'retry-after': 'inf' });
    expect(ms).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(parse({ 'retry-after-ms': '1e999', 'retry-after': '2' }).ms).toBe(2000);
  });

  it('reads a Headers object', () => {
    expect(parse(new Headers({ 'Retry-After': '3' })).ms).toBe(3000);
    expect(parse(new Headers({ 'Retry-After-Ms': '250', 'Retry-After': '3' })).ms).toBe(250);
  });

  it('reads a record with array values (first wins) and tolerates non-lower-cased names', () => {
    expect(parse({ 'retry-after': ['4', '9'] }).ms).toBe(4000);
    expect(parse({ 'Retry-After': '6' }).ms).toBe(6000);
  });

  it('does not warn when there is nothing to warn about', () => {
    const warn = vi.fn();
    parseRetryAfter({ 'retry-after': '1' }, { sourceName: 's', warn });
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('estimateTokens', () => {
  it('is 0 for empty text and at least 1 otherwise', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a')).toBe(1);
  });

  it('counts about four latin characters per token', () => {
    expect(estimateTokens('a'.repeat(400))).toBe(100);
  });

  it('counts a CJK character as about one token', () => {
    expect(estimateTokens('你好世界')).toBe(4);
    expect(estimateTokens('こんにちは')).toBe(5);
    expect(estimateTokens('안녕하세요')).toBe(5);
  });

  it('adds both parts of mixed text', () => {
    expect(estimateTokens('你好 world!!')).toBe(2 + Math.ceil(' world!!'.length / 4));
  });
});
