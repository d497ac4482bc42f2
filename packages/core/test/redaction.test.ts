import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecret, redactSecrets } from '../src/index.js';
import { MIN_CUT_PREFIX_CHARS } from '../src/internal.js';

const KEY = 'sk-live/Qm93+xT"v\\z';
const OTHER = 'hv-9f2c8a7e';

/** How a key looks echoed inside JSON text (JSON.stringify minus the quotes). */
function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

describe('redactSecrets', () => {
  it.each([
    ['as is', KEY],
    ['JSON-escaped', jsonEscaped(KEY)],
    ['JSON-escaped with \\/ (PHP, Python relays)', jsonEscaped(KEY).replaceAll('/', '\\/')],
    ['JSON inside JSON', jsonEscaped(jsonEscaped(KEY).replaceAll('/', '\\/'))],
    ['as \\u escapes (ASCII-only JSON)', Array.from(KEY, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['as upper-case \\u escapes', Array.from(KEY, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join('')],
    ['URL-encoded', encodeURIComponent(KEY)],
    ['URL-encoded in lower case', encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(KEY))],
    ['as HTML entities', KEY.replaceAll('"', '&quot;').replaceAll('/', '&#x2F;')],
  ])('replaces a secret echoed %s', (_, echoed) => {
    const text = `{"error":{"message":"Incorrect API key provided: ${echoed}. See docs"}}`;
    const redacted = redactSecrets(text, [KEY]);
    expect(redacted).toBe('{"error":{"message":"Incorrect API key provided: [redacted]. See docs"}}');
  });

  it('replaces every secret of the list and ignores empty or absent ones', () => {
    expect(redactSecrets(`${KEY} and ${OTHER} and ${KEY}`, [undefined, '', OTHER, KEY])).toBe(
      '[redacted] and [redacted] and [redacted]',
    );
    expect(redactSecrets('plain text', [undefined, ''])).toBe('plain text');
  });

  it('redacts a secret that contains another one whole', () => {
    expect(redactSecrets(`x ${OTHER}-extra y`, [OTHER, `${OTHER}-extra`])).toBe('x [redacted] y');
  });

  it('redacts non-ASCII secrets in their UTF-8 and UTF-16 escapes', () => {
    const secret = 'clé-🚀-x';
    expect(redactSecrets(`a ${encodeURIComponent(secret)} b`, [secret])).toBe('a [redacted] b');
    expect(redactSecrets(`a clé-\\ud83d\\ude80-x b`, [secret])).toBe('a [redacted] b');
  });

  describe('with cut', () => {
    it.each([
      ['as is', KEY.slice(0, 9)],
      ['JSON-escaped', jsonEscaped(KEY).replaceAll('/', '\\/').slice(0, 9)],
      ['ending inside an escape', `${KEY.slice(0, 7)}\\`],
      ['ending inside a \\u escape', `${KEY.slice(0, 7)}\\u00`],
      ['URL-encoded, ending inside a percent escape', `${encodeURIComponent(KEY).slice(0, 10)}%2`],
      ['exactly the minimum', KEY.slice(0, MIN_CUT_PREFIX_CHARS)],
      ['one short of the whole key', KEY.slice(0, -1)],
    ])('redacts a tail that begins a secret, %s', (_, tail) => {
      expect(redactSecrets(`message: ${tail}`, [KEY], { cut: true })).toBe('message: [redacted]');
    });

    it(`keeps a tail shorter than ${MIN_CUT_PREFIX_CHARS} characters of the secret, and any tail without cut`, () => {
      const short = KEY.slice(0, MIN_CUT_PREFIX_CHARS - 1);
      expect(redactSecrets(`message: ${short}`, [KEY], { cut: true })).toBe(`message: ${short}`);
      expect(redactSecrets(`message: ${KEY.slice(0, 9)}`, [KEY])).toBe(`message: ${KEY.slice(0, 9)}`);
    });

    it('keeps a tail that only looks like a secret in the middle', () => {
      expect(redactSecrets(`message: ${KEY.slice(2, 12)}`, [KEY], { cut: true })).toBe(`message: ${KEY.slice(2, 12)}`);
    });

    it('leaves no prefix of the secret at any cut point of an echo', () => {
      const text = `{"error":"key ${jsonEscaped(KEY).replaceAll('/', '\\/')} refused"}`;
      for (let end = 0; end <= text.length; end += 1) {
        const redacted = redactSecrets(text.slice(0, end), [KEY], { cut: true });
        expect(redacted).not.toContain(KEY.slice(0, MIN_CUT_PREFIX_CHARS));
      }
    });
  });

  it('stays linear on text built to make a matcher backtrack (64 KiB of backslashes, percent signs, entities)', () => {
    const hostile: Array<[string, string]> = [
      ['\\'.repeat(40) + 'x', '\\'.repeat(65_536)],
      ['%25'.repeat(6) + 'x', '%25'.repeat(21_845)],
      ['&amp;'.repeat(8), '&amp;'.repeat(13_107)],
    ];
    for (const [secret, text] of hostile) {
      const started = performance.now();
      redactSecrets(text, [secret], { cut: true });
      // A backtracking matcher takes hours here; the margin is for a loaded machine.
      expect(performance.now() - started).toBeLessThan(5_000);
    }
  });

  it('never leaves a secret in any text that contains it, cut or not', () => {
    const secret = fc.string({ minLength: 8, maxLength: 40 }).filter((s) => s.trim() === s && !s.includes('[redacted]'));
    fc.assert(
      fc.property(fc.string(), secret, fc.string(), fc.boolean(), (before, key, after, cut) => {
        const redacted = redactSecrets(`${before}${key}${after}`, [key], { cut });
        expect(redacted.includes(key)).toBe(false);
        expect(redactSecrets(`${before}${encodeURIComponent(key)}`, [key], { cut })).not.toContain(encodeURIComponent(key));
      }),
    );
  });
});

describe('redactSecret', () => {
  it('is redactSecrets with one secret', () => {
    expect(redactSecret(`a ${jsonEscaped(KEY)} b`, KEY)).toBe('a [redacted] b');
    expect(redactSecret('Bearer abc', undefined)).toBe('Bearer abc');
  });
});
