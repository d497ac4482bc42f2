import { RequestRejectedError, ResultInvalidError, TransientError } from '@pgw/core';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Endpoint, createAgent, sendAttempt, type HttpAnswer, type HttpAttempt } from '../src/index.js';

let mock: MockUpstream;
let agent: ReturnType<typeof createAgent>;

beforeAll(async () => {
  mock = await startMockUpstream({ script: { sources: { up: {} } } });
  agent = createAgent();
});

afterAll(async () => {
  await agent.close();
  await mock.close();
});

function attempt(overrides: Partial<HttpAttempt> = {}): HttpAttempt {
  return {
    dispatcher: agent,
    endpoint: new Endpoint({ baseUrl: mock.baseUrl('up'), apiKey: 'sk-attempt-key' }, 'test'),
    route: 'embeddings',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: ['a'] }),
    attempt: { signal: new AbortController().signal, sourceName: 'up', timeoutMs: 5000 },
    maxResponseBytes: 1024 * 1024,
    warn: () => {},
    ...overrides,
  };
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('sendAttempt', () => {
  it('hands a 2xx answer to the reader, with the endpoint headers on the request', async () => {
    mock.reset();
    const answer = await sendAttempt(attempt(), async (a) => ({ status: a.status, json: JSON.parse(await a.text()) as { data: unknown[] } }));
    expect(answer.status).toBe(200);
    expect(answer.json.data).toHaveLength(1);
    expect(mock.requests('up')[0]?.headers['authorization']).toBe('Bearer sk-attempt-key');
  });

  it('reads at most 64 KiB of a huge error body and closes its connection', async () => {
    mock.setSource('up', { steps: [{ kind: 'status', status: 400, body: `{"error":"${'e'.repeat(4 * 1024 * 1024)}"}` }] });
    const error = (await failure(sendAttempt(attempt(), async () => undefined))) as RequestRejectedError;
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect(error.bodyText!.length).toBeLessThanOrEqual(2048);
    await expect.poll(() => mock.counters('up').inflight).toBe(0);
  });

  it('fails a 2xx body beyond maxResponseBytes while reading, naming the limit', async () => {
    mock.setSource('up', { steps: [{ kind: 'oversized', mb: 4 }] });
    let received = 0;
    const error = await failure(
      sendAttempt(attempt({ maxResponseBytes: 256 * 1024 }), async (answer: HttpAnswer) => {
        for await (const chunk of answer.chunks()) received += chunk.byteLength;
      }),
    );
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect((error as ResultInvalidError).issues).toEqual(['the answer exceeds maxResponseBytes (262144 bytes)']);
    expect(received).toBeLessThanOrEqual(256 * 1024);
    await expect.poll(() => mock.counters('up').inflight).toBe(0);
  });

  it('fails text() of a 2xx body beyond maxResponseBytes too, whatever the body announces', async () => {
    mock.setSource('up', { steps: [{ kind: 'oversized', mb: 4 }] });
    const error = await failure(sendAttempt(attempt({ maxResponseBytes: 256 * 1024 }), (answer: HttpAnswer) => answer.text()));
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect((error as ResultInvalidError).issues).toEqual(['the answer exceeds maxResponseBytes (262144 bytes)']);
    await expect.poll(() => mock.counters('up').inflight).toBe(0);
  });

  it('hands every chunk to eachChunk as it arrives and resolves at the end of the body', async () => {
    mock.setSource('up', { steps: [{ kind: 'oversized', mb: 1 }] });
    let received = 0;
    await sendAttempt(attempt({ maxResponseBytes: 2 * 1024 * 1024 }), (answer) =>
      answer.eachChunk((chunk) => {
        received += chunk.byteLength;
      }),
    );
    expect(received).toBeGreaterThanOrEqual(1024 * 1024);
    await expect.poll(() => mock.counters('up').inflight).toBe(0);
  });

  it('ends eachChunk beyond maxResponseBytes, or with what the reader threw, and closes the connection', async () => {
    mock.setSource('up', { steps: [{ kind: 'oversized', mb: 4 }] });
    let received = 0;
    const tooLarge = await failure(
      sendAttempt(attempt({ maxResponseBytes: 256 * 1024 }), (answer) =>
        answer.eachChunk((chunk) => {
          received += chunk.byteLength;
        }),
      ),
    );
    expect((tooLarge as ResultInvalidError).issues).toEqual(['the answer exceeds maxResponseBytes (262144 bytes)']);
    expect(received).toBeLessThanOrEqual(256 * 1024);
    await expect.poll(() => mock.counters('up').inflight).toBe(0);

    mock.setSource('up', { steps: [{ kind: 'oversized', mb: 4 }] });
    const refused = new Error('the reader refused this chunk');
    const thrown = await failure(
      sendAttempt(attempt({ maxResponseBytes: 8 * 1024 * 1024 }), (answer) =>
        answer.eachChunk(() => {
          throw refused;
        }),
      ),
    );
    expect(thrown).toBe(refused);
    await expect.poll(() => mock.counters('up').inflight).toBe(0);
  });

  it('destroys a body the reader left unread, so its socket is not pinned', async () => {
    mock.setSource('up', { steps: [{ kind: 'oversized', mb: 4 }] });
    await sendAttempt(attempt({ maxResponseBytes: 8 * 1024 * 1024 }), async () => 'ignored');
    await expect.poll(() => mock.counters('up').inflight).toBe(0);
  });

  it('bounds the attempt by timeoutMs, body included', async () => {
    mock.setSource('up', { steps: [{ kind: 'stall' }] });
    const error = await failure(sendAttempt(attempt({ attempt: { signal: new AbortController().signal, sourceName: 'up', timeoutMs: 150 } }), (a) => a.text()));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'timeout', sourceName: 'up' });
  });

  it('rejects a timeoutMs that is not a positive number', async () => {
    const error = await failure(sendAttempt(attempt({ attempt: { signal: new AbortController().signal, sourceName: 'up', timeoutMs: 0 } }), async () => undefined));
    expect(error).toBeInstanceOf(RangeError);
  });

  it('sends through an injected dispatcher, interceptors included', async () => {
    mock.setSource('up', {});
    const seen: string[] = [];
    const intercepted = agent.compose((dispatch) => (options: Dispatcher.DispatchOptions, handler) => {
      seen.push(`${options.method} ${options.path}`);
      return dispatch(options, handler);
    });
    await sendAttempt(attempt({ dispatcher: intercepted, endpoint: new Endpoint({ baseUrl: mock.baseUrl('up'), query: { v: '1' } }, 'test') }), (a) => a.text());
    expect(seen).toEqual(['POST /up/v1/embeddings?v=1']);
  });
});
