/**
 * Per-source HTTP options and in-band errors end to end, through `fromEnv` against the mock: where
 * headers, query and the key land; STREAM=false; the response cap; an error reported inside a 200
 * answer classified like the HTTP error it stands for, caller faults never counting toward a breaker.
 */
import { describe, expect, it } from 'vitest';
import {
  AllSourcesExhausted,
  EmbeddingClient,
  GatewayClient,
  RequestRejectedError,
  ResultInvalidError,
  type ChatDelta,
} from '../src/index.js';
import { MemoryRecorder } from '@pgw/core';
import { MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const HI = [{ role: 'user' as const, content: 'hi' }];
const SECRET_HEADER = 'route-SECRET-7d1f';
const fixture = MockFixture.use();

async function chatClient(label: string, fields: Record<string, string>, scopeExtra: Record<string, string> = {}, script = {}) {
  const scope = uniqueScope(label);
  const source = fixture.source(label, { content: 'one two three', ...script });
  const recorder = new MemoryRecorder();
  const env = { PGW_CACHE_BACKEND: 'none', ...fixture.sourceKeys(scope, source, fields), ...scopeKeys(scope, scopeExtra) };
  const client = await GatewayClient.fromEnv(scope, { env, recorder, warn: () => {} });
  return { client, source, recorder };
}

describe('per-source HTTP options through fromEnv', () => {
  it('sends HEADERS and QUERY with every request, and the key in API_KEY_HEADER as it is', async () => {
    const { client, source } = await chatClient('headers', {
      HEADERS: JSON.stringify({ 'X-Route': SECRET_HEADER, 'HTTP-Referer': 'https://example.test' }),
      QUERY: JSON.stringify({ 'api-version': '2024-06-01' }),
      API_KEY: 'azure-key-1',
      API_KEY_HEADER: 'api-key',
    });
    try {
      await client.chat(HI);
      const [request] = fixture.mock.requests(source);
      expect(request!.headers).toMatchObject({ 'x-route': SECRET_HEADER, 'http-referer': 'https://example.test', 'api-key': 'azure-key-1' });
      expect(request!.headers).not.toHaveProperty('authorization');
      expect(request!.query).toEqual({ 'api-version': '2024-06-01' });
    } finally {
      await client.close();
    }
  });

  it('sends the key as a bearer token by default', async () => {
    const { client, source } = await chatClient('bearer', { API_KEY: 'sk-bearer-1' });
    try {
      await client.chat(HI);
      expect(fixture.mock.requests(source)[0]!.headers['authorization']).toBe('Bearer sk-bearer-1');
    } finally {
      await client.close();
    }
  });

  it('STREAM=false: chat reads one JSON body, chatStream yields the whole answer as one delta', async () => {
    const { client, source } = await chatClient('nostream', { STREAM: 'false' });
    try {
      await expect(client.chat(HI)).resolves.toMatchObject({ content: 'one two three', usage: { usageSource: 'measured' } });
      const stream = client.chatStream(HI);
      const deltas: ChatDelta[] = [];
      for await (const delta of stream) deltas.push(delta);
      expect(deltas).toEqual([{ content: 'one two three' }]);
      expect(fixture.mock.requests(source).map((r) => (r.body as { stream?: boolean }).stream)).toEqual([false, false]);
    } finally {
      await client.close();
    }
  });

  it('MAX_RESPONSE_MB: a larger answer fails that attempt with ResultInvalidError naming the limit, not retried', async () => {
    const { client, source } = await chatClient('oversized', { MAX_RESPONSE_MB: '1', STREAM: 'false' }, { MAX_ATTEMPTS: '3' }, {
      steps: [{ kind: 'oversized', mb: 3 }],
    });
    try {
      const error = await client.chat(HI).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResultInvalidError);
      expect((error as Error).message).toMatch(/1048576 bytes|1 MiB/);
      expect(fixture.mock.counters(source).chat).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('the same options reach an embedding source', async () => {
    const scope = uniqueScope('embedhdr');
    const source = fixture.source('embedhdr');
    const env = fixture.sourceKeys(scope, source, { HEADERS: JSON.stringify({ 'x-route': 'e1' }), QUERY: JSON.stringify({ v: '2' }) });
    const client = await EmbeddingClient.fromEnv(scope, { env, warn: () => {} });
    try {
      await client.embed(['a']);
      const [request] = fixture.mock.requests(source);
      expect(request!.headers['x-route']).toBe('e1');
      expect(request!.query).toEqual({ v: '2' });
    } finally {
      await client.close();
    }
  });
});

describe('errors inside a 200 answer', () => {
  it.each([
    ['a stream (data: payload)', 'true', 'data'],
    ['a stream (event: error)', 'true', 'event'],
    ['a JSON body', 'false', 'data'],
  ] as const)('invalid_request_error in %s is a RequestRejectedError: one request, no retry, breaker untouched, header value redacted', async (_where, stream, as) => {
    const { client, source, recorder } = await chatClient(
      'inband',
      { STREAM: stream, HEADERS: JSON.stringify({ 'x-route': SECRET_HEADER }) },
      { MAX_ATTEMPTS: '3', BREAKER__FAILURE_THRESHOLD: '1', CIRCUIT_OPEN: 'fail_fast' },
      { steps: [{ kind: 'in_band_error', as, error: { message: `bad input ${SECRET_HEADER}`, type: 'invalid_request_error' } }] },
    );
    try {
      const error = await client.chat(HI).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestRejectedError);
      expect(JSON.stringify([(error as Error).message, (error as RequestRejectedError).bodyText])).not.toContain(SECRET_HEADER);
      expect(fixture.mock.counters(source).chat).toBe(1);
      // A tripped breaker (threshold 1, fail_fast) would refuse this call.
      await expect(client.chat(HI)).resolves.toMatchObject({ content: 'one two three', callStats: { attempts: 1 } });
      expect(recorder.rows.filter((row) => row.errorType === 'RequestRejectedError')).toHaveLength(2);
      expect(JSON.stringify(recorder.rows)).not.toContain(SECRET_HEADER);
    } finally {
      await client.close();
    }
  });

  it('a server_error in a stream is transient: retried on the next attempt', async () => {
    const { client, source } = await chatClient('inbandretry', {}, { MAX_ATTEMPTS: '3', RETRY__BACKOFF_BASE_S: '0.001' }, {
      steps: [{ kind: 'in_band_error', afterTokens: 0, error: { message: 'overloaded', type: 'server_error' } }],
    });
    try {
      await expect(client.chat(HI)).resolves.toMatchObject({ content: 'one two three', callStats: { attempts: 2 } });
      expect(fixture.mock.counters(source).chat).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('an authentication_error makes the source dead: the call moves on, and fails when no source is left', async () => {
    const { client } = await chatClient('inbanddead', {}, { MAX_ATTEMPTS: '1' }, {
      steps: [{ kind: 'in_band_error', error: { message: 'no key', type: 'authentication_error' } }],
    });
    try {
      await expect(client.chat(HI)).rejects.toBeInstanceOf(AllSourcesExhausted);
    } finally {
      await client.close();
    }
  });
});
