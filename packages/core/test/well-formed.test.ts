import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wellFormed, wellFormedDeep, wellFormedJson } from '../src/well-formed.js';

const HIGH = '\uD83D';
const LOW = '\uDE80';

function isWellFormedText(text: string): boolean {
  return Buffer.from(text, 'utf8').toString('utf8') === text;
}

describe('wellFormed', () => {
  it('replaces lone high and low surrogates and keeps proper pairs', () => {
    expect(wellFormed(`a${HIGH}b`)).toBe('a\uFFFDb');
    expect(wellFormed(`a${LOW}b`)).toBe('a\uFFFDb');
    expect(wellFormed(`${HIGH}`)).toBe('\uFFFD');
    expect(wellFormed(`${LOW}${HIGH}`)).toBe('\uFFFD\uFFFD');
    expect(wellFormed(`🚀${HIGH}🚀`)).toBe('🚀\uFFFD🚀');
    expect(wellFormed('plain 🚀 text')).toBe('plain 🚀 text');
  });

  it('always yields text that survives a UTF-8 round trip, unchanged when it already did', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const result = wellFormed(text);
        expect(isWellFormedText(result)).toBe(true);
        if (isWellFormedText(text)) expect(result).toBe(text);
        expect(result).toBe(Buffer.from(text, 'utf8').toString('utf8'));
      }),
    );
  });
});

describe('wellFormedDeep', () => {
  it('copies plain data with every string and key well-formed, leaving other values alone', () => {
    const bytes = new Uint8Array([1]);
    const input = { [`k${HIGH}`]: [`v${LOW}`, 1, null, true, { deep: `x${HIGH}` }], bytes };
    const output = wellFormedDeep(input);
    expect(output).toEqual({ 'k\uFFFD': ['v\uFFFD', 1, null, true, { deep: 'x\uFFFD' }], bytes });
    expect(output.bytes).toBe(bytes);
    expect(input[`k${HIGH}`]![0]).toBe(`v${LOW}`);
  });

  it('returns well-formed data itself, proper surrogate pairs included, without copying it', () => {
    const input = { messages: [{ role: 'user', content: `rocket ${HIGH}${LOW}` }], n: 1, bytes: new Uint8Array([1]) };
    expect(wellFormedDeep(input)).toBe(input);
  });
});

describe('wellFormedJson', () => {
  it('replaces lone surrogates in keys and values with a U+FFFD escape', () => {
    const json = wellFormedJson({ [`k${HIGH}`]: [`v${LOW}`, '🚀'], n: 1 });
    expect(JSON.parse(json)).toEqual({ 'k\uFFFD': ['v\uFFFD', '🚀'], n: 1 });
  });

  it('leaves an escaped backslash before a u-escape look-alike alone', () => {
    const value = { text: '\\ud800 is written literally', odd: `\\${HIGH}` };
    expect(JSON.parse(wellFormedJson(value))).toEqual({ text: '\\ud800 is written literally', odd: '\\\uFFFD' });
  });

  it('parses back to the well-formed form of every string', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), (value) => {
        const expected = Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormed(v)]));
        expect(JSON.parse(wellFormedJson(value))).toEqual(expected);
      }),
    );
  });
});
