import { describe, expect, it } from 'vitest';
import {
  PolyGatewayError,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type TransientKind,
} from '@pgw/core';
import { translateHttpFailure, translateNetworkFailure } from '../src/index.js';

const API_KEY = 'sk-secret-Qm93xT';
const warnings: string[] = [];
const ctx = { sourceName: 'relay', secrets: [API_KEY], route: 'chat/completions', warn: (m: string) => warnings.push(m) };

function translate(status: number, body = '{"error":{"message":"x"}}', headers: Record<string, string> = {}) {
  return translateHttpFailure({ status, headers, body }, ctx);
}

type Category = abstract new (...args: never[]) => PolyGatewayError;

describe('translateHttpFailure: the status table', () => {
  const rows: Array<[number, Category, string, TransientKind?]> = [
    [100, ResultInvalidError, 'unexpected status'],
    [101, ResultInvalidError, 'unexpected status'],
    [301, SourceDeadError, 'redirect'],
    [302, SourceDeadError, 'redirect'],
    [307, SourceDeadError, 'redirect'],
    [308, SourceDeadError, 'redirect'],
    [400, RequestRejectedError, 'request rejected'],
    [401, SourceDeadError, 'credentials refused'],
    [402, SourceDeadError, 'payment required'],
    [403, SourceDeadError, 'credentials refused'],
    [404, SourceDeadError, 'not found'],
    [405, RequestRejectedError, 'request rejected'],
    [408, TransientError, 'timeout', 'timeout'],
    [409, RequestRejectedError, 'request rejected'],
    [413, RequestRejectedError, 'request rejected'],
    [418, RequestRejectedError, 'request rejected'],
    [422, RequestRejectedError, 'request rejected'],
    [429, TransientError, 'rate limited', 'rate_limited'],
    [451, RequestRejectedError, 'request rejected'],
    [500, TransientError, 'server error', 'server_error'],
    [502, TransientError, 'server error', 'server_error'],
    [503, TransientError, 'server error', 'server_error'],
    [504, TransientError, 'server error', 'server_error'],
    [599, TransientError, 'server error', 'server_error'],
    [600, ResultInvalidError, 'unexpected status'],
  ];

  it.each(rows)('HTTP %i → %o (%s)', (status, category, verdict, kind) => {
    const error = translate(status, '{"error":{"message":"upstream says no"}}');
    expect(error).toBeInstanceOf(category);
    for (const other of [TransientError, SourceDeadError, RequestRejectedError, ResultInvalidError].filter((c) => c !== category)) {
      expect(error).not.toBeInstanceOf(other);
    }
    expect(error).toMatchObject({ sourceName: 'relay', statusCode: status, bodyText: '{"error":{"message":"upstream says no"}}' });
    expect(error.message.startsWith(`source relay chat/completions: HTTP ${status} (`)).toBe(true);
    expect(error.message.endsWith('): {"error":{"message":"upstream says no"}}')).toBe(true);
    expect(error.message).toContain(verdict);
    if (kind !== undefined) expect((error as TransientError).transientKind).toBe(kind);
  });

  it('names an unexpected status in the issues of a ResultInvalidError', () => {
    expect((translate(102) as ResultInvalidError).issues).toEqual(['unexpected HTTP status 102']);
  });

  it('leaves the route out of the message when none is given', () => {
    const error = translateHttpFailure({ status: 500, headers: {}, body: 'oops' }, { sourceName: 'ocr_1', secrets: [], warn: () => {} });
    expect(error.message).toBe('source ocr_1: HTTP 500 (server error): oops');
  });
});

describe('translateHttpFailure: Retry-After', () => {
  it.each([429, 408, 500, 503])('HTTP %i honours Retry-After seconds', (status) => {
    expect(translate(status, 'busy', { 'retry-after': '3' })).toMatchObject({ retryAfterMs: 3000 });
  });

  it('prefers retry-after-ms and accepts a Headers object', () => {
    const headers = new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' });
    expect(translateHttpFailure({ status: 503, headers, body: '' }, ctx)).toMatchObject({ retryAfterMs: 1500 });
  });

  it('reads an HTTP-date by the injected clock', () => {
    const now = () => Date.parse('2030-01-01T00:00:00Z');
    const error = translateHttpFailure(
      { status: 429, headers: { 'retry-after': 'Tue, 01 Jan 2030 00:00:05 GMT' }, body: '' },
      { ...ctx, now },
    );
    expect(error).toMatchObject({ transientKind: 'rate_limited', retryAfterMs: 5000 });
  });

  it('gives no hint without a header', () => {
    expect((translate(429, 'slow down') as TransientError).retryAfterMs).toBeUndefined();
  });

  it('treats a non-finite hint as none, with one warning naming the source', () => {
    warnings.length = 0;
    expect((translate(429, 'slow down', { 'retry-after': 'inf' }) as TransientError).retryAfterMs).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('relay');
    expect(warnings[0]).toContain('retry_after_not_finite');
  });
});

describe('translateHttpFailure: 429 quota or rate limit', () => {
  it.each([
    '{"error":{"code":"insufficient_quota","type":"insufficient_quota"}}',
    '{"error":{"code":"insufficient_quota"}}',
    '{"error":{"type":"billing_hard_limit_reached"}}',
    '{"error":{"code":"billing_not_active","message":"activate billing"}}',
    '{"error":{"type":"Insufficient_Quota","code":null}}',
    '{"error":{"code":"rate_limit_exceeded","type":"insufficient_quota"}}',
  ])('structured quota code %s → SourceDeadError', (body) => {
    const error = translate(429, body);
    expect(error).toBeInstanceOf(SourceDeadError);
    expect(error.message).toContain('quota exhausted');
  });

  it.each([
    '{"error":{"code":"rate_limit_exceeded","message":"see your billing page; insufficient_quota soon"}}',
    '{"error":{"type":"requests","code":"billing_something_else"}}',
  ])('a structured code outside the set decides, whatever the words: %s → TransientError', (body) => {
    expect(translate(429, body)).toBeInstanceOf(TransientError);
  });

  it.each([
    'Upstream: INSUFFICIENT_QUOTA for this key',
    '<html>Billing account suspended</html>',
    'Billing hard limit reached',
    '{"error":{"message":"billing required"}}',
    '{"error":"insufficient_quota"}',
  ])('a body without a structured code is searched case-insensitively: %s → SourceDeadError', (body) => {
    expect(translate(429, body)).toBeInstanceOf(SourceDeadError);
  });

  it.each(['slow down', '', '{"error":{"message":"Rate limit reached"}}', 'null', '[1,2]'])(
    'a plain rate limit %j → TransientError rate_limited',
    (body) => {
      expect(translate(429, body)).toMatchObject({ transientKind: 'rate_limited' });
    },
  );

  it('reads quota words only on a 429', () => {
    expect(translate(400, '{"error":{"code":"insufficient_quota"}}')).toBeInstanceOf(RequestRejectedError);
    expect(translate(503, 'billing backend down')).toBeInstanceOf(TransientError);
  });
});

describe('translateHttpFailure: the body', () => {
  it('folds the body into bodyText and the message, redacting the API key', () => {
    const error = translate(401, `{"error":{"message":"Incorrect API key provided:   ${API_KEY}"}}`) as SourceDeadError;
    expect(error.bodyText).toBe('{"error":{"message":"Incorrect API key provided: [redacted]"}}');
    expect(error.message).toContain('Incorrect API key provided: [redacted]');
    expect([error.message, error.bodyText, JSON.stringify(error), String(error.stack)].join('\n')).not.toContain(API_KEY);
  });

  it('redacts before cutting, so no piece of a key at the cut survives', () => {
    const key = 'sk-0123456789abcdefghijklmnopqrstuvwxyzABCD';
    // summarizeBody keeps the last 1022 characters: they would start inside the key.
    const body = 'a'.repeat(3000) + key + 'b'.repeat(1000);
    const error = translateHttpFailure({ status: 400, headers: {}, body }, { ...ctx, secrets: [key] }) as RequestRejectedError;
    expect(error.bodyText!.length).toBeLessThanOrEqual(2048);
    expect(error.bodyText).not.toContain(key.slice(-22));
    expect(error.message).not.toContain(key.slice(-22));
  });

  it('redacts a key echoed JSON-escaped, and with cut the start of one the read stopped inside', () => {
    const key = 'sk-live/Qm93xT-7c1e';
    const escapedBody = `{"error":"bad key ${key.replace('/', '\\/')}"}`;
    const escaped = translateHttpFailure({ status: 400, headers: {}, body: escapedBody }, { ...ctx, secrets: [key] }) as RequestRejectedError;
    expect(escaped.bodyText).toBe('{"error":"bad key [redacted]"}');
    const body = `{"error":"bad key ${key.slice(0, 9)}`;
    const uncut = translateHttpFailure({ status: 400, headers: {}, body }, { ...ctx, secrets: [key] });
    const cut = translateHttpFailure({ status: 400, headers: {}, body, cut: true }, { ...ctx, secrets: [key] });
    expect(uncut.message).toContain(key.slice(0, 9));
    expect(cut.message).not.toContain(key.slice(0, 4));
    expect(cut.message).toContain('bad key [redacted]');
  });

  it('keeps head and tail of a long body', () => {
    const error = translate(400, `{"error":"${'x'.repeat(10_000)}","request_id":"req-tail-42"}`) as RequestRejectedError;
    expect(error.bodyText!.length).toBeLessThanOrEqual(2048);
    expect(error.bodyText!.startsWith('{"error":"xxx')).toBe(true);
    expect(error.bodyText).toContain('req-tail-42');
  });
});

describe('translateNetworkFailure', () => {
  const withCode = (code: string, cause?: unknown) => Object.assign(new Error('boom', { cause }), { code });
  const net = { sourceName: 'ocr_1', route: 'ocr/text' };

  it.each([
    ['ECONNREFUSED', 'network'],
    ['ECONNRESET', 'network'],
    ['ECONNABORTED', 'network'],
    ['EPIPE', 'network'],
    ['EHOSTUNREACH', 'network'],
    ['ENETUNREACH', 'network'],
    ['ENOTFOUND', 'network'],
    ['EAI_AGAIN', 'network'],
    ['UND_ERR_SOCKET', 'network'],
    ['UND_ERR_CLOSED', 'network'],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'network'],
    ['ETIMEDOUT', 'timeout'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
  ])('%s → TransientError %s', (code, kind) => {
    const cause = withCode(code);
    const error = translateNetworkFailure(cause, net);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ sourceName: 'ocr_1', transientKind: kind, statusCode: undefined, cause });
    expect(error!.message).toBe(`source ocr_1 ocr/text: ${kind === 'timeout' ? 'timed out' : 'connection failed'} (${code})`);
  });

  it('finds the code on the cause when the outer error has none or an unknown one', () => {
    expect(translateNetworkFailure(new TypeError('fetch failed', { cause: withCode('ECONNRESET') }), net)).toMatchObject({
      transientKind: 'network',
    });
    expect(translateNetworkFailure(withCode('ERR_WRAPPER', withCode('UND_ERR_HEADERS_TIMEOUT')), net)).toMatchObject({
      transientKind: 'timeout',
    });
  });

  it('leaves the route out of the message when none is given', () => {
    expect(translateNetworkFailure(withCode('ECONNREFUSED'), { sourceName: 'x' })!.message).toBe('source x: connection failed (ECONNREFUSED)');
  });

  it.each([
    ['a bug', new TypeError('a bug')],
    ['an unknown code', withCode('ERR_SOMETHING_ELSE')],
    ['a code two causes deep', new Error('outer', { cause: new Error('middle', { cause: withCode('ECONNRESET') }) })],
    ['a thrown string', 'ECONNRESET'],
    ['null', null],
    ['a numeric code', Object.assign(new Error('x'), { code: 104 })],
  ])('leaves %s alone', (_name, error) => {
    expect(translateNetworkFailure(error, net)).toBeUndefined();
  });
});
