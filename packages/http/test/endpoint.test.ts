import { describe, expect, it } from 'vitest';
import { Endpoint, checkHeaders, isHeaderName, isHeaderValue } from '../src/index.js';

const SECRET = 'hdr-secret-value-91';

function thrownMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

describe('Endpoint: headers and auth', () => {
  it('sends Bearer KEY in authorization by default, the raw key in a custom header, and the per-source headers', () => {
    expect(new Endpoint({ baseUrl: 'http://h/v1', apiKey: 'k1', headers: { 'X-Route': 'a' } }, 'f').headers).toEqual({
      'x-route': 'a',
      authorization: 'Bearer k1',
    });
    expect(new Endpoint({ baseUrl: 'http://h/v1', apiKey: 'k1', apiKeyHeader: 'Api-Key' }, 'f').headers).toEqual({ 'api-key': 'k1' });
    expect(new Endpoint({ baseUrl: 'http://h/v1' }, 'f').headers).toEqual({});
  });

  it('lists the key and every header value as secrets', () => {
    expect(new Endpoint({ baseUrl: 'http://h', apiKey: 'k1', headers: { a: 'x', b: 'y' } }, 'f').secrets).toEqual(['k1', 'x', 'y']);
  });

  it.each([
    [{ 'content-type': 'x' }, 'content-type'],
    [{ 'Content-Length': '1' }, 'content-length'],
    [{ HOST: 'h' }, 'host'],
    [{ Authorization: 'Bearer x' }, 'authorization'],
  ])('rejects the reserved or auth header %o', (headers, name) => {
    expect(thrownMessage(() => new Endpoint({ baseUrl: 'http://h', headers }, 'openaiCompatible'))).toContain(
      `openaiCompatible(options.headers) may not set '${name}'`,
    );
  });

  it('rejects the custom key header among the headers, and a duplicate name in another case', () => {
    expect(() => new Endpoint({ baseUrl: 'http://h', apiKeyHeader: 'api-key', headers: { 'Api-Key': 'x' } }, 'f')).toThrow(/api-key/);
    expect(() => checkHeaders({ 'x-a': '1', 'X-A': '2' }, 'o')).toThrow(/twice/);
  });

  it.each(['a\r\nb', `${SECRET}\n`, `${SECRET}\u0000`, `${SECRET}\u2603`, 42])('rejects an illegal value without echoing it', (value) => {
    const message = thrownMessage(() => new Endpoint({ baseUrl: 'http://h', headers: { 'x-a': value as string } }, 'openaiCompatible'));
    expect(message).toContain("openaiCompatible(options.headers): the value of 'x-a'");
    expect(message).not.toContain(SECRET);
  });

  it('rejects an illegal name by position, and an illegal key or key header', () => {
    expect(thrownMessage(() => new Endpoint({ baseUrl: 'http://h', headers: { ok: '1', 'bad name': '2' } }, 'f'))).toContain('header #2');
    const keyMessage = thrownMessage(() => new Endpoint({ baseUrl: 'http://h', apiKey: `${SECRET}\r\n` }, 'f'));
    expect(keyMessage).toContain('f(options.apiKey)');
    expect(keyMessage).not.toContain(SECRET);
    expect(() => new Endpoint({ baseUrl: 'http://h', apiKeyHeader: 'bad header' }, 'f')).toThrow(/f\(options\.apiKeyHeader\)/);
    expect(() => new Endpoint({ baseUrl: 'http://h', apiKeyHeader: 'Host' }, 'f')).toThrow(/f\(options\.apiKeyHeader\)/);
  });

  it('exports the predicates for settings schemas', () => {
    expect(isHeaderName('x-ok')).toBe(true);
    expect(isHeaderName('x ok')).toBe(false);
    expect(isHeaderValue('tab\tok é')).toBe(true);
    expect(isHeaderValue('nope\r')).toBe(false);
    expect(isHeaderValue('☃')).toBe(false);
  });
});

describe('Endpoint: targets', () => {
  it('keeps the base path, merges the query of the base URL with options.query', () => {
    const endpoint = new Endpoint({ baseUrl: 'https://relay.example/openai/v1/?tenant=a&api-version=1', query: { 'api-version': '2024-10-21', x: 'a b' } }, 'f');
    expect(endpoint.target('chat/completions')).toEqual({
      origin: 'https://relay.example',
      path: '/openai/v1/chat/completions?tenant=a&api-version=2024-10-21&x=a+b',
    });
    expect(new Endpoint({ baseUrl: 'http://h:8080' }, 'f').target('health')).toEqual({ origin: 'http://h:8080', path: '/health' });
  });

  it('returns the same parsed target for a route every time', () => {
    const endpoint = new Endpoint({ baseUrl: 'http://h/v1' }, 'f');
    expect(endpoint.target('embeddings')).toBe(endpoint.target('embeddings'));
  });

  it('rejects a bad base URL or query without echoing the URL', () => {
    const message = thrownMessage(() => new Endpoint({ baseUrl: `not a url ${SECRET}` }, 'monkeyOcr'));
    expect(message).toBe('monkeyOcr(options.baseUrl) is not a valid URL');
    expect(() => new Endpoint({ baseUrl: 'ftp://h' }, 'f')).toThrow(/f\(options\.baseUrl\) must be an http/);
    expect(() => new Endpoint({ baseUrl: 'http://h', query: { a: 1 as unknown as string } }, 'f')).toThrow(/f\(options\.query\): the value of 'a'/);
    expect(() => new Endpoint({ baseUrl: 'http://h', query: [] as unknown as Record<string, string> }, 'f')).toThrow(TypeError);
  });
});
