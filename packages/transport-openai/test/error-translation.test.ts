import { RequestRejectedError, ResultInvalidError, SourceDeadError, TransientError } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { translateHttpFailure, translateTransportFailure } from '../src/error-translation.js';
import { sourceConfig } from './helpers.js';

const source = sourceConfig({ name: 'relay', apiKey: 'sk-secret-123' });
const ctx = { source, route: 'chat/completions', warn: () => {}, now: Date.now };
const translate = (status: number, body = '{"error":{"message":"x"}}', headers: Record<string, string> = {}) =>
  translateHttpFailure({ status, headers, body }, ctx);

describe('translateHttpFailure', () => {
  it.each([
    [401, SourceDeadError],
    [403, SourceDeadError],
    [404, SourceDeadError],
    [400, RequestRejectedError],
    [413, RequestRejectedError],
    [422, RequestRejectedError],
    [409, RequestRejectedError],
    [408, TransientError],
    [500, TransientError],
    [502, TransientError],
    [503, TransientError],
    [504, TransientError],
    [429, TransientError],
  ])('HTTP %i → %o', (status, expected) => {
    const error = translate(status);
    expect(error).toBeInstanceOf(expected);
    expect(error).not.toBeInstanceOf(ResultInvalidError);
    expect(error).toMatchObject({ sourceName: 'relay', statusCode: status });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain('relay');
  });

  it('gives transient kinds by cause', () => {
    expect(translate(429)).toMatchObject({ transientKind: 'rate_limited' });
    expect(translate(503)).toMatchObject({ transientKind: 'server_error' });
    expect(translate(408)).toMatchObject({ transientKind: 'timeout' });
  });

  it('reads insufficient_quota or billing from error.code / error.type', () => {
    expect(translate(429, '{"error":{"code":"insufficient_quota"}}')).toBeInstanceOf(SourceDeadError);
    expect(translate(429, '{"error":{"type":"billing_hard_limit_reached"}}')).toBeInstanceOf(SourceDeadError);
    expect(translate(429, '{"error":{"type":"Insufficient_Quota","code":null}}')).toBeInstanceOf(SourceDeadError);
  });

  it('lets structured fields win over words in the message', () => {
    const body = '{"error":{"code":"rate_limit_exceeded","message":"see your billing page"}}';
    expect(translate(429, body)).toBeInstanceOf(TransientError);
  });

  it('searches a body without structured codes, case-insensitively', () => {
    expect(translate(429, 'Upstream: INSUFFICIENT_QUOTA for this key')).toBeInstanceOf(SourceDeadError);
    expect(translate(429, '<html>Billing account suspended</html>')).toBeInstanceOf(SourceDeadError);
    expect(translate(429, '{"error":{"message":"billing required"}}')).toBeInstanceOf(SourceDeadError);
    expect(translate(429, 'slow down')).toBeInstanceOf(TransientError);
  });

  it('treats a redirect as a dead (misconfigured) source', () => {
    expect(translate(301, '')).toBeInstanceOf(SourceDeadError);
  });

  it('folds the body into message and bodyText, redacting the API key', () => {
    const error = translate(401, '{"error":{"message":"Incorrect API key provided:   sk-secret-123"}}');
    expect(error.message).toContain('Incorrect API key provided: [redacted]');
    expect((error as SourceDeadError).bodyText).toBe('{"error":{"message":"Incorrect API key provided: [redacted]"}}');
    expect(JSON.stringify(error) + error.message).not.toContain('sk-secret-123');
  });

  it('keeps head and tail of a long body', () => {
    const body = `{"error":"${'x'.repeat(10_000)}","request_id":"req-tail-42"}`;
    const error = translate(400, body) as RequestRejectedError;
    expect(error.bodyText!.length).toBeLessThanOrEqual(2048);
    expect(error.bodyText).toContain('req-tail-42');
  });
});

describe('translateTransportFailure', () => {
  const withCode = (code: string, cause?: unknown) => Object.assign(new Error('boom', { cause }), { code });

  it('classifies refused / reset connections as network and undici timeouts as timeout', () => {
    expect(translateTransportFailure(withCode('ECONNREFUSED'), source, 'embeddings')).toMatchObject({ transientKind: 'network' });
    expect(translateTransportFailure(withCode('ECONNRESET'), source, 'embeddings')).toMatchObject({ transientKind: 'network' });
    expect(translateTransportFailure(withCode('UND_ERR_SOCKET'), source, 'embeddings')).toMatchObject({ transientKind: 'network' });
    expect(translateTransportFailure(withCode('UND_ERR_HEADERS_TIMEOUT'), source, 'x')).toMatchObject({ transientKind: 'timeout' });
    expect(translateTransportFailure(withCode('UND_ERR_CONNECT_TIMEOUT'), source, 'x')).toMatchObject({ transientKind: 'timeout' });
  });

  it('finds the code on a wrapped cause', () => {
    const wrapped = new TypeError('fetch failed', { cause: withCode('ECONNRESET') });
    expect(translateTransportFailure(wrapped, source, 'x')).toBeInstanceOf(TransientError);
  });

  it('leaves errors it cannot classify alone', () => {
    expect(translateTransportFailure(new TypeError('a bug'), source, 'x')).toBeUndefined();
    expect(translateTransportFailure(withCode('ERR_SOMETHING_ELSE'), source, 'x')).toBeUndefined();
  });
});
