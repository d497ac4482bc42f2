import { createServer } from 'node:net';
import {
  PolyGatewayError,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
} from '@pgw/core';
import { startMockUpstream, type MockUpstream, type SourceScript, type Step } from '@pgw/mock-upstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toleratesOffSpec } from './conformance/recorder.js';
import { attemptContext, harness, scriptedSource, sourceOptions, thrown, type ScriptedSource, type SourceOverrides } from './helpers.js';

const API_KEY = 'sk-test-Zq81bYwP0secret';
const messages = [{ role: 'user' as const, content: 'hi' }];
let mock: MockUpstream;
let transport: ReturnType<typeof harness>;
const warnings: string[] = [];

beforeAll(async () => {
  mock = await startMockUpstream({ script: { sources: {} } });
  transport = harness({ warn: (message) => warnings.push(message) });
});

afterAll(async () => {
  await transport.close();
  await mock.close();
});

function source(script: SourceScript, overrides: SourceOverrides = {}): ScriptedSource {
  return scriptedSource(mock, script, { apiKey: API_KEY, ...overrides });
}

async function chatFailure(step: Step, options: { stream?: boolean; overrides?: SourceOverrides } = {}) {
  const error = await thrown(() =>
    transport.chat(source({ steps: [step] }, options.overrides), { messages, sampling: {}, stream: options.stream }, attemptContext()),
  );
  return error as PolyGatewayError & { statusCode?: number; bodyText?: string; transientKind?: string; retryAfterMs?: number };
}

async function embedFailure(step: Step, overrides: SourceOverrides = {}) {
  return thrown(() => transport.embed(source({ steps: [step] }, overrides), { texts: ['a', 'b'] }, attemptContext()));
}

describe('docs/architecture.md#transports translation, over a real socket', () => {
  it('429 insufficient_quota → SourceDeadError', async () => {
    const error = await chatFailure({ kind: 'insufficient_quota' });
    expect(error).toBeInstanceOf(SourceDeadError);
    expect(error).toMatchObject({ statusCode: 429 });
    expect(error.bodyText).toContain('insufficient_quota');
  });

  it('429 with a billing body that is not JSON → SourceDeadError', async () => {
    expect(await chatFailure({ kind: 'status', status: 429, body: 'Billing hard limit reached' })).toBeInstanceOf(SourceDeadError);
  });

  it('429 rate limit → TransientError rate_limited with the Retry-After seconds', async () => {
    const error = await chatFailure({ kind: 'rate_limit', retryAfter: '2' });
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ statusCode: 429, transientKind: 'rate_limited', retryAfterMs: 2000 });
  });

  it('429 with retry-after-ms → that many milliseconds', async () => {
    const error = await chatFailure({ kind: 'status', status: 429, retryAfterMs: '1500', retryAfter: '9' });
    expect(error).toMatchObject({ transientKind: 'rate_limited', retryAfterMs: 1500 });
  });

  it('429 with Retry-After: inf → no hint and exactly one warning naming the source', async () => {
    warnings.length = 0;
    const src = source({ steps: [{ kind: 'rate_limit', retryAfter: 'inf' }] });
    const error = await thrown(() => transport.chat(src, { messages, sampling: {} }, attemptContext()));
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).retryAfterMs).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(src.name);
    expect(warnings[0]).toContain('retry_after_not_finite');
  });

  it('429 with an HTTP-date Retry-After → the delay until it, by the injected clock', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const clocked = harness({ now: () => now });
    try {
      const src = source({ steps: [{ kind: 'status', status: 429, retryAfter: 'Tue, 01 Jan 2030 00:00:05 GMT' }] });
      const error = await thrown(() => clocked.chat(src, { messages, sampling: {} }, attemptContext()));
      expect(error).toMatchObject({ transientKind: 'rate_limited', retryAfterMs: 5000 });
    } finally {
      await clocked.close();
    }
  });

  it.each([401, 402, 403, 404, 302])('%i → SourceDeadError', async (status) => {
    const error = await chatFailure({ kind: 'status', status, headers: { location: '/elsewhere' } });
    expect(error).toBeInstanceOf(SourceDeadError);
    expect(error).toMatchObject({ statusCode: status });
  });

  it('404 of an unknown model route → SourceDeadError', async () => {
    const error = await thrown(() =>
      transport.chat(sourceOptions({ name: 'gone', baseUrl: mock.baseUrl('no-such-source') }), { messages, sampling: {} }, attemptContext()),
    );
    expect(error).toBeInstanceOf(SourceDeadError);
    expect((error as SourceDeadError).bodyText).toContain('model_not_found');
  });

  it.each([400, 413, 422, 409])('%i → RequestRejectedError keeping the body for triage', async (status) => {
    const error = await chatFailure({ kind: 'status', status, body: { error: { message: 'bad things', code: 'relay_400' } } });
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect(error).toMatchObject({ statusCode: status });
    expect(error.bodyText).toContain('relay_400');
    expect(error.message).toContain('relay_400');
  });

  it.each([
    [408, 'timeout'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
  ])('%i → TransientError %s', async (status, kind) => {
    const error = await chatFailure({ kind: 'status', status, retryAfter: '3' });
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ statusCode: status, transientKind: kind, retryAfterMs: 3000 });
  });

  it('connection refused → TransientError network', async () => {
    const port = await closedPort();
    const error = await thrown(() =>
      transport.chat(sourceOptions({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY }), { messages, sampling: {} }, attemptContext()),
    );
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'network' });
  });

  it('a connection cut mid-body → TransientError network', async () => {
    const error = await chatFailure({ kind: 'truncate' });
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'network' });
  });

  it('no answer within timeoutMs → TransientError timeout, and the upstream exchange is closed', async () => {
    const src = source({ steps: [{ kind: 'hang' }] }, { timeoutMs: 100 });
    const error = await thrown(() => transport.chat(src, { messages, sampling: {} }, attemptContext()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'timeout', sourceName: src.name });
    await expect.poll(() => mock.counters(src.name).inflight).toBe(0);
  });

  it('half a body then silence → TransientError timeout', async () => {
    expect(await chatFailure({ kind: 'stall' }, { overrides: { timeoutMs: 100 } })).toMatchObject({ transientKind: 'timeout' });
  });

  it('a stream that ends without [DONE] → TransientError truncated', async () => {
    const error = await chatFailure({ kind: 'truncate', afterTokens: 2 }, { stream: true });
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'truncated', statusCode: 200 });
  });

  it.each(['unparseable', 'wrong_shape'] as const)('2xx %s chat body → ResultInvalidError', async (variant) => {
    const error = await chatFailure({ kind: 'malformed', variant });
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect(error).toMatchObject({ statusCode: 200 });
  });

  it.each(['unparseable', 'wrong_shape'] as const)('2xx %s stream → ResultInvalidError', async (variant) => {
    toleratesOffSpec('CreateChatCompletionStreamResponse'); // the wrong shape is the point: a chunk without choices
    expect(await chatFailure({ kind: 'malformed', variant }, { stream: true })).toBeInstanceOf(ResultInvalidError);
  });

  it.each(['unparseable', 'wrong_shape'] as const)('2xx %s embeddings body → ResultInvalidError', async (variant) => {
    expect(await embedFailure({ kind: 'malformed', variant })).toBeInstanceOf(ResultInvalidError);
  });

  it('embeddings errors translate like chat ones', async () => {
    expect(await embedFailure({ kind: 'status', status: 401 })).toBeInstanceOf(SourceDeadError);
    expect(await embedFailure({ kind: 'status', status: 413 })).toBeInstanceOf(RequestRejectedError);
    expect(await embedFailure({ kind: 'rate_limit' })).toBeInstanceOf(TransientError);
  });

  it('never puts the API key in a message, bodyText or serialised error, even when the upstream echoes it', async () => {
    toleratesOffSpec('CreateChatCompletionStreamResponse'); // the wrong_shape step's chunk has no choices, on purpose
    const echo = { error: { message: `Incorrect API key provided: ${API_KEY}`, code: 'invalid_api_key' } };
    const failingSteps: Step[] = [
      { kind: 'status', status: 401, body: echo },
      { kind: 'status', status: 400, body: `bad request for key ${API_KEY}` },
      { kind: 'status', status: 429, body: echo },
      { kind: 'status', status: 500, body: echo, headers: { 'x-echo': API_KEY } },
      { kind: 'insufficient_quota' },
      { kind: 'rate_limit', retryAfter: 'inf' },
      { kind: 'truncate' },
      { kind: 'stall' },
      { kind: 'malformed' },
      { kind: 'malformed', variant: 'wrong_shape' },
    ];
    const errors: unknown[] = [];
    for (const step of failingSteps) {
      errors.push(await chatFailure(step, { overrides: { timeoutMs: 100 } }));
      errors.push(await chatFailure(step, { stream: true, overrides: { timeoutMs: 100 } }));
      errors.push(await embedFailure(step, { timeoutMs: 100 }));
    }
    const port = await closedPort();
    const refused = sourceOptions({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY });
    errors.push(await thrown(() => transport.chat(refused, { messages, sampling: {} }, attemptContext())));

    const src = source({});
    await transport.chat(src, { messages, sampling: {} }, attemptContext());
    expect(mock.requests(src.name)[0]?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(errors).toHaveLength(3 * failingSteps.length + 1);
    for (const error of errors) {
      const e = error as PolyGatewayError & { bodyText?: string };
      expect(e).toBeInstanceOf(PolyGatewayError);
      const surface = [e.message, e.bodyText ?? '', JSON.stringify(e), String(e.stack)].join('\n');
      expect(surface).not.toContain(API_KEY);
    }
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
