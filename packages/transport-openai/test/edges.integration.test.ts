import { RequestRejectedError, ResultInvalidError, SourceDeadError, TransientError } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { attemptContext, harness, mockAndHarness, scriptedSource, thrown } from './helpers.js';

const messages = [{ role: 'user' as const, content: 'hi' }];
const request = { messages, sampling: {} };
const env = mockAndHarness();

describe('in-band errors from a real socket', () => {
  it.each([
    ['data', { type: 'invalid_request_error' }, RequestRejectedError],
    ['event', { type: 'invalid_request_error' }, RequestRejectedError],
    ['data', { code: 'insufficient_quota' }, SourceDeadError],
    ['event', { type: 'authentication_error' }, SourceDeadError],
    ['data', { status: 400, type: 'server_error' }, RequestRejectedError],
    ['data', { type: 'overloaded_error' }, TransientError],
  ] as const)('a 200 stream with the error as %s %o → %o, after the deltas it already sent', async (as, error, category) => {
    const source = scriptedSource(env.mock, { content: 'one two three', steps: [{ kind: 'in_band_error', as, error, afterTokens: 2 }] });
    const ctx = attemptContext();
    const failure = await thrown(() => env.transport.chat(source, { ...request, stream: true }, ctx));
    expect(failure).toBeInstanceOf(category);
    expect(failure).toMatchObject({ sourceName: source.name });
    expect(ctx.deltas).toEqual([{ content: 'one ' }, { content: 'two ' }]);
  });

  it('a 200 JSON error body, chat or embeddings, is classified by its type or status', async () => {
    const rateLimited = scriptedSource(env.mock, { steps: [{ kind: 'in_band_error', error: { type: 'rate_limit_exceeded' } }] });
    expect(await thrown(() => env.transport.chat(rateLimited, request, attemptContext()))).toMatchObject({ transientKind: 'rate_limited' });
    const rejected = scriptedSource(env.mock, { steps: [{ kind: 'in_band_error', error: { status: 422 } }] });
    expect(await thrown(() => env.transport.embed(rejected, { texts: ['a'] }, attemptContext()))).toBeInstanceOf(RequestRejectedError);
  });
});

describe('per-source headers, query and key placement', () => {
  it('sends the headers and the query on every route, and the raw key in a custom key header', async () => {
    const source = scriptedSource(env.mock, {}, {
      apiKey: 'azure-key-1',
      apiKeyHeader: 'api-key',
      headers: { 'HTTP-Referer': 'https://app.example', 'X-Title': 'pgw' },
      query: { 'api-version': '2024-10-21' },
    });
    // A query already in the base URL is kept and merged with options.query.
    source.options.baseUrl = `${env.mock.baseUrl(source.name)}?deployment=d1`;
    await env.transport.chat(source, request, attemptContext());
    await env.transport.chat(source, { ...request, stream: true }, attemptContext());
    await env.transport.embed(source, { texts: ['a'] }, attemptContext());
    const recorded = env.mock.requests(source.name);
    expect(recorded.map((r) => r.route)).toEqual(['chat', 'chat', 'embeddings']);
    for (const seen of recorded) {
      expect(seen.query).toEqual({ deployment: 'd1', 'api-version': '2024-10-21' });
      expect(seen.headers).toMatchObject({ 'api-key': 'azure-key-1', 'http-referer': 'https://app.example', 'x-title': 'pgw' });
      expect(seen.headers).not.toHaveProperty('authorization');
    }
  });
});

describe('stream: false', () => {
  it('generate reads one JSON body; stream() yields the whole answer as one delta', async () => {
    const source = scriptedSource(env.mock, { content: 'one two three', reasoning: 'hmm' });
    const model = env.transport.model(source, false);
    const ctx = attemptContext();
    const result = await model.stream(request, Object.assign(ctx, { sourceName: source.name }));
    expect(ctx.deltas).toEqual([{ content: 'one two three', reasoningContent: 'hmm' }]);
    expect(result.content).toBe('one two three');
    expect(env.mock.requests(source.name)[0]?.body).toMatchObject({ stream: false });
    expect(env.mock.requests(source.name)[0]?.body).not.toHaveProperty('stream_options');
  });

  it('has no first-token limit: a slow JSON answer within the attempt timeout succeeds', async () => {
    const slow = harness({ liveness: { firstTokenMs: 50, interTokenMs: 50 } });
    try {
      const source = scriptedSource(env.mock, { latencyMs: 300 });
      expect((await slow.chat(source, request, attemptContext())).content).toBe(`hello from ${source.name}`);
      const streaming = await thrown(() => slow.chat(scriptedSource(env.mock, { latencyMs: 300 }), { ...request, stream: true }, attemptContext()));
      expect(streaming).toMatchObject({ transientKind: 'stalled_stream' });
    } finally {
      await slow.close();
    }
  });

  it('the attempt timeout still holds', async () => {
    const source = scriptedSource(env.mock, { otherwise: { kind: 'hang' } }, { timeoutMs: 150 });
    expect(await thrown(() => env.transport.chat(source, request, attemptContext()))).toMatchObject({ transientKind: 'timeout' });
  });
});

describe('generate on a streaming model', () => {
  it('streams on the wire for liveness and usage but forwards no delta', async () => {
    const source = scriptedSource(env.mock, { content: 'a b c' });
    const ctx = attemptContext();
    const result = await env.transport.model(source, true).generate(request, Object.assign(ctx, { sourceName: source.name }));
    expect(result.content).toBe('a b c');
    expect(ctx.deltas).toEqual([]);
    expect(ctx.usages).toHaveLength(1);
    expect(env.mock.requests(source.name)[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });
});

describe('maxResponseBytes', () => {
  it.each([
    ['a chunked JSON body', { kind: 'oversized', mb: 3 }, false],
    ['a JSON body announced by Content-Length', { kind: 'oversized', mb: 3, contentLength: true }, false],
    ['a stream', { kind: 'oversized', mb: 3 }, true],
  ] as const)('%s beyond the cap → ResultInvalidError naming the limit, and the exchange is closed', async (_name, step, stream) => {
    const source = scriptedSource(env.mock, { steps: [step] }, { maxResponseBytes: 1024 * 1024 });
    const error = await thrown(() => env.transport.chat(source, { ...request, stream }, attemptContext()));
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect((error as Error).message).toContain('maxResponseBytes (1048576 bytes)');
    await expect.poll(() => env.mock.counters(source.name).inflight).toBe(0);
  });

  it('a body within the cap is read whole', async () => {
    const source = scriptedSource(env.mock, { steps: [{ kind: 'oversized', mb: 1 }] }, { maxResponseBytes: 2 * 1024 * 1024 });
    const result = await env.transport.chat(source, request, attemptContext());
    expect(result.content.length).toBeGreaterThan(1024 * 1023);
  });
});
