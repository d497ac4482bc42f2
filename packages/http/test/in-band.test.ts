import { PolyGatewayError, RequestRejectedError, ResultInvalidError, SourceDeadError, TransientError } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { inBandErrorObject, translateInBandError } from '../src/index.js';

const SECRET = 'sk-inband-Zx81';
const HEADER_SECRET = 'routing-secret-77';
const ctx = { sourceName: 'relay', secrets: [SECRET, HEADER_SECRET], route: 'chat/completions', status: 200, warn: () => {} };

type Category = abstract new (...args: never[]) => PolyGatewayError;

function classify(error: Record<string, unknown>): PolyGatewayError {
  return translateInBandError(JSON.stringify({ error }), ctx);
}

describe('translateInBandError: by type or code string', () => {
  const rows: Array<[string, Category, string?]> = [
    ['invalid_request_error', RequestRejectedError],
    ['authentication_error', SourceDeadError],
    ['permission_error', SourceDeadError],
    ['insufficient_quota', SourceDeadError],
    ['rate_limit_error', TransientError, 'rate_limited'],
    ['rate_limit_exceeded', TransientError, 'rate_limited'],
    ['server_error', TransientError, 'server_error'],
    ['overloaded_error', TransientError, 'server_error'],
    ['something_new', TransientError, 'server_error'],
  ];

  it.each(rows)('type %s → %o', (type, category, kind) => {
    const error = classify({ message: 'no', type });
    expect(error).toBeInstanceOf(category);
    expect(error).toMatchObject({ sourceName: 'relay', statusCode: 200 });
    if (kind !== undefined) expect(error).toMatchObject({ transientKind: kind });
    expect(error.message).toContain('source relay chat/completions in-band error');
  });

  it.each(rows)('code %s → %o', (code, category, kind) => {
    const error = classify({ message: 'no', code });
    expect(error).toBeInstanceOf(category);
    if (kind !== undefined) expect(error).toMatchObject({ transientKind: kind });
  });

  it('reads the type when the code is an unknown string, and ignores case', () => {
    expect(classify({ type: 'INVALID_REQUEST_ERROR', code: 'bad_param' })).toBeInstanceOf(RequestRejectedError);
    expect(classify({ type: 'mystery', code: 'insufficient_quota' })).toBeInstanceOf(SourceDeadError);
  });

  it('a known code outranks the type: it is the more specific', () => {
    expect(classify({ type: 'invalid_request_error', code: 'insufficient_quota' })).toBeInstanceOf(SourceDeadError);
    expect(classify({ type: 'invalid_request_error', code: 'rate_limit_exceeded' })).toMatchObject({ transientKind: 'rate_limited' });
  });

  it('an error without type, code or status, or a bare string error, is transient', () => {
    expect(classify({ message: 'boom' })).toMatchObject({ transientKind: 'server_error' });
    expect(translateInBandError('{"error":"boom"}', ctx)).toBeInstanceOf(TransientError);
    expect(translateInBandError('not json at all', ctx)).toBeInstanceOf(TransientError);
  });
});

describe('translateInBandError: by numeric status or code', () => {
  const rows: Array<[Record<string, unknown>, Category, string?]> = [
    [{ status: 400 }, RequestRejectedError],
    [{ code: 400, type: 'server_error' }, RequestRejectedError],
    [{ code: '422' }, RequestRejectedError],
    [{ status: 401 }, SourceDeadError],
    [{ code: 403 }, SourceDeadError],
    [{ status: 429 }, TransientError, 'rate_limited'],
    [{ code: 429, type: 'insufficient_quota' }, SourceDeadError],
    [{ status: 500, type: 'invalid_request_error' }, TransientError, 'server_error'],
    [{ code: 503 }, TransientError, 'server_error'],
  ];

  it.each(rows)('%o → %o (the number outranks the strings)', (fields, category, kind) => {
    const error = classify({ message: 'no', ...fields });
    expect(error).toBeInstanceOf(category);
    expect(error).not.toBeInstanceOf(ResultInvalidError);
    if (kind !== undefined) expect(error).toMatchObject({ transientKind: kind });
    expect(error.message).toContain('in-band error');
  });

  it('a number outside 400–599 does not count as a status', () => {
    expect(classify({ code: 200, type: 'invalid_request_error' })).toBeInstanceOf(RequestRejectedError);
    expect(classify({ code: 12345 })).toBeInstanceOf(TransientError);
  });
});

describe('translateInBandError: the payload', () => {
  it('an event: error payload without an error key is the error itself (Anthropic style)', () => {
    expect(translateInBandError('{"type":"invalid_request_error","message":"bad"}', ctx)).toBeInstanceOf(RequestRejectedError);
  });

  it('redacts the API key and every header value', () => {
    const error = classify({ message: `key ${SECRET} route ${HEADER_SECRET}`, type: 'invalid_request_error' }) as RequestRejectedError;
    const shown = [error.message, error.bodyText, JSON.stringify(error)].join('\n');
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain(HEADER_SECRET);
    expect(error.bodyText).toContain('[redacted]');
  });

  it('a rate limit takes its Retry-After from the answer headers', () => {
    const error = translateInBandError('{"error":{"type":"rate_limit_error"}}', { ...ctx, headers: { 'retry-after': '3' } });
    expect(error).toMatchObject({ transientKind: 'rate_limited', retryAfterMs: 3000 });
  });
});

describe('inBandErrorObject', () => {
  it('finds an error object or string, and nothing in a normal chunk', () => {
    expect(inBandErrorObject({ error: { type: 'x' } })).toEqual({ type: 'x' });
    expect(inBandErrorObject({ error: 'boom' })).toEqual({ message: 'boom' });
    expect(inBandErrorObject({ choices: [] })).toBeUndefined();
    expect(inBandErrorObject({ error: null, choices: [] })).toBeUndefined();
    expect(inBandErrorObject('text')).toBeUndefined();
  });
});
