import { describe, expect, it } from 'vitest';
import {
  MAX_META_JSON_LENGTH,
  assertImage,
  assertMessages,
  assertRequestSize,
  assertTexts,
  callerDimensions,
  jsonBytesBound,
  resolveCallDeadline,
} from '../src/call-input.js';

describe('assertMessages', () => {
  it('accepts string and content-part messages', () => {
    expect(() =>
      assertMessages(
        [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:,' } }] },
        ],
        'chat(messages)',
      ),
    ).not.toThrow();
  });

  it.each([
    ['not an array', 'hello', TypeError, /chat\(messages\) must be an array/],
    ['empty', [], RangeError, /must not be empty/],
    ['a bare string element', ['hi'], TypeError, /chat\(messages\)\[0\] must be an object/],
    ['an unknown role', [{ role: 'robot', content: 'x' }], TypeError, /\[0\]\.role/],
    ['missing content', [{ role: 'user' }], TypeError, /\[0\]\.content/],
    ['a bad content part', [{ role: 'user', content: [{ text: 'x' }] }], TypeError, /\[0\]\.content\[0\]/],
  ])('refuses %s', (_label, messages, type, pattern) => {
    expect(() => assertMessages(messages, 'chat(messages)')).toThrow(type);
    expect(() => assertMessages(messages, 'chat(messages)')).toThrow(pattern);
  });
});

describe('assertTexts', () => {
  it('accepts string arrays, including an empty one', () => {
    expect(() => assertTexts(['a', ''], 'embed(texts)')).not.toThrow();
    expect(() => assertTexts([], 'embed(texts)')).not.toThrow();
  });
  it('refuses a bare string (explicit over implicit) and non-strings', () => {
    expect(() => assertTexts('one text', 'embed(texts)')).toThrow(/wrap a single text as \[text\]/);
    expect(() => assertTexts(['a', 1], 'embed(texts)')).toThrow(/embed\(texts\)\[1\] must be a string/);
    expect(() => assertTexts(undefined, 'embed(texts)')).toThrow(TypeError);
  });
});

describe('assertImage', () => {
  it('accepts non-empty bytes (Buffer included)', () => {
    expect(() => assertImage(new Uint8Array([1]), 'recognizeText(image)')).not.toThrow();
    expect(() => assertImage(Buffer.from('x'), 'recognizeText(image)')).not.toThrow();
  });
  it('refuses empty bytes and non-bytes', () => {
    expect(() => assertImage(new Uint8Array(), 'recognizeText(image)')).toThrow(RangeError);
    expect(() => assertImage('path/to.png', 'recognizeText(image)')).toThrow(/recognizeText\(image\) must be a Uint8Array/);
  });
});

describe('callerDimensions', () => {
  it('returns validated ids and a frozen JSON copy of meta', () => {
    const meta = { run: 3, tags: ['a'], nested: { ok: true, none: null } };
    const dims = callerDimensions({ tenantId: 't1', sessionId: 's', parentCallId: 'p', meta }, 'chat');
    expect(dims).toEqual({ tenantId: 't1', sessionId: 's', parentCallId: 'p', meta });
    expect(dims.meta).not.toBe(meta);
    expect(Object.isFrozen(dims.meta!.nested)).toBe(true);
    expect(Object.isFrozen(meta)).toBe(false);
  });

  it.each([
    [{ tenantId: '' }, /chat\(tenantId\)/],
    [{ tenantId: 42 }, /chat\(tenantId\)/],
    [{ sessionId: 'x'.repeat(257) }, /chat\(sessionId\)/],
    [{ meta: [1] }, /chat\(meta\) must be a plain object/],
    [{ meta: { f: () => 1 } }, /chat\(meta\)\.f must be JSON-serialisable/],
    [{ meta: { n: Number.NaN } }, /chat\(meta\)\.n holds a non-finite number/],
    [{ meta: { d: new Date(0) } }, /chat\(meta\)\.d must be JSON-serialisable/],
    [{ meta: { big: 1n } }, /chat\(meta\)\.big/],
    [{ meta: { blob: 'x'.repeat(MAX_META_JSON_LENGTH) } }, /chat\(meta\) is \d+ characters as JSON/],
  ])('refuses %o', (options, pattern) => {
    expect(() => callerDimensions(options as never, 'chat')).toThrow(pattern);
  });

  it('returns a frozen copy of a key’s bounds, and names the field of a malformed one', () => {
    const key = { id: 'key_0123456789abcdef', rpm: 10, tpm: 0, maxConcurrency: 2, budget: { usd: 1, window: 'day' as const } };
    const dims = callerDimensions({ key }, 'embed');
    expect(dims.key).toEqual(key);
    expect(dims.key).not.toBe(key);
    expect(Object.isFrozen(dims.key!.budget)).toBe(true);
    expect(() => callerDimensions({ key: { ...key, maxConcurrency: 1.5 } }, 'embed')).toThrow(/^embed\(key\)\.maxConcurrency must be/);
    expect(() => callerDimensions({ key: { ...key, budget: { usd: -1, window: 'day' } } }, 'embed')).toThrow(/^embed\(key\)\.budget\.usd/);
  });

  it('refuses a cyclic meta with a clear error (not a stack overflow)', () => {
    const meta: Record<string, unknown> = {};
    meta.self = meta;
    expect(() => callerDimensions({ meta }, 'chat')).toThrow(/nests deeper than/);
  });
});

describe('resolveCallDeadline', () => {
  it('inherits the assembled deadline when unset, else validates naming the origin', () => {
    expect(resolveCallDeadline(undefined, 500, 'chat(callDeadlineMs)')).toBe(500);
    expect(resolveCallDeadline(undefined, undefined, 'chat(callDeadlineMs)')).toBeUndefined();
    expect(resolveCallDeadline(250, 500, 'chat(callDeadlineMs)')).toBe(250);
    for (const bad of [0, -1, Number.NaN, Infinity, true, '100', null]) {
      expect(() => resolveCallDeadline(bad, 500, 'chat(callDeadlineMs)')).toThrow(RangeError);
      expect(() => resolveCallDeadline(bad, 500, 'chat(callDeadlineMs)')).toThrow(/chat\(callDeadlineMs\)/);
    }
  });
});

describe('jsonBytesBound', () => {
  const exact = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

  it.each([
    ['ASCII', { messages: [{ role: 'user', content: 'hello' }] }],
    ['control characters (6-byte escapes)', ['\u0001\u0002\u001f', '"\\']],
    ['non-ASCII and emoji', { 'clé': ['日本語', '🚀🚀', 'é'.repeat(100)] }],
    ['numbers and literals', [1, -1.2345678901234567e-308, 1e21, null, true, false, { n: Number.MAX_VALUE }]],
    ['nested parts', [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'data:,' } }] }]],
  ])('is never below the exact JSON size: %s', (_, value) => {
    expect(jsonBytesBound(value, 0)).toBeGreaterThanOrEqual(exact(value));
  });

  it('leaves what it cannot bound to the exact count (a toJSON, a bigint)', () => {
    expect(jsonBytesBound({ at: new Date(0) }, 0)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonBytesBound([1n], 0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('assertRequestSize', () => {
  const settings = { scope: 'S', maxRequestMb: 1 / 1024 }; // 1 KiB

  it('counts exactly when the bound is over: a request the bound overestimates still passes', () => {
    // 200 'é' = 400 bytes as JSON, bounded at 1202: over 1 KiB, so the exact count decides.
    expect(() => assertRequestSize(['é'.repeat(200)], 'chat(messages)', settings)).not.toThrow();
  });

  it('refuses a request over the bound, naming the key and the exact size, extra bytes included', () => {
    expect(() => assertRequestSize({ a: 'x'.repeat(600) }, 'ocr(image)', settings, 512)).toThrow(
      'ocr(image) is 0.0 MiB; the bound is 0.0009765625 MiB (S__MAX_REQUEST_MB)',
    );
  });
});
