/** What the three model contract suites share: the upstream, the models under test, the transport-level cases. */
import {
  PolyGatewayError,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type ChatDelta,
  type ModelIdentity,
  type StreamAttemptContext,
  type Usage,
} from '@pgw/core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startLoopbackUpstream, type LoopbackUpstream } from './loopback-upstream.js';

/** What the suite hands `makeModel`: everything a model needs to reach the suite's upstream. */
export interface ContractModelOptions {
  /** The upstream's base URL: OpenAI-compatible (`…/v1`) for chat and embeddings, the server root for OCR. */
  baseUrl: string;
  apiKey?: string;
  /** Default `authorization` (`Bearer KEY`); any other header name carries the raw key. */
  apiKeyHeader?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  maxResponseBytes?: number;
  /** Chat only: whether the model asks for SSE. */
  stream?: boolean;
}

export type MakeModel<M extends ModelIdentity> = (options: ContractModelOptions) => M | Promise<M>;

export const CONTRACT_SOURCE = 'contract-source';
export const CONTRACT_KEY = 'sk-contract-Zq81bYwP';
export const CONTRACT_HEADER_VALUE = 'hdr-secret-4c1e9a';

export interface RecordingAttempt extends StreamAttemptContext {
  usages: Usage[];
  deltas: ChatDelta[];
}

export function recordingAttempt(signal: AbortSignal = new AbortController().signal, timeoutMs = 10_000): RecordingAttempt {
  const usages: Usage[] = [];
  const deltas: ChatDelta[] = [];
  return {
    signal,
    sourceName: CONTRACT_SOURCE,
    timeoutMs,
    callId: 'contract-call',
    logicalCallId: 'contract-logical-call',
    usages,
    deltas,
    onUsage: (usage) => usages.push(usage),
    onDelta: (delta) => deltas.push(delta),
  };
}

/** The caller's abort, not one of the taxonomy: `abortError(signal)` (an AbortError whose cause is the reason) or the reason itself. */
export function expectCallerAbort(error: unknown, reason: unknown): void {
  expect(error).not.toBeInstanceOf(PolyGatewayError);
  const isAbortError = (error as { name?: unknown } | null)?.name === 'AbortError';
  expect(error === reason || isAbortError).toBe(true);
  if (isAbortError && error !== reason) expect((error as Error).cause).toBe(reason);
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the attempt to fail, it succeeded');
}

/** The suite's upstream (one per describe) and the models it made (closed after each test). */
export interface ContractEnvironment<M extends ModelIdentity> {
  readonly upstream: LoopbackUpstream;
  make(overrides?: Partial<ContractModelOptions>): Promise<M>;
}

export function contractEnvironment<M extends ModelIdentity>(
  makeModel: MakeModel<M>,
  defaults: (upstream: LoopbackUpstream) => ContractModelOptions,
): ContractEnvironment<M> {
  let upstream: LoopbackUpstream | undefined;
  const made: M[] = [];
  beforeAll(async () => {
    upstream = await startLoopbackUpstream();
  });
  afterEach(async () => {
    for (const model of made.splice(0)) await model.close?.();
    // A test that ended early leaves no exchange behind for the next one.
    await expect.poll(() => upstream?.inflight ?? 0).toBe(0);
  });
  afterAll(async () => {
    await upstream?.close();
  });
  return {
    get upstream() {
      if (upstream === undefined) throw new Error('the contract upstream is not started');
      return upstream;
    },
    async make(overrides = {}) {
      const model = await makeModel({ ...defaults(this.upstream), ...overrides });
      made.push(model);
      return model;
    },
  };
}

type Category = abstract new (...args: never[]) => Error;

/**
 * The cases every model of an HTTP upstream passes, whatever it does: abort wins, error categories,
 * the attempt timeout, the body cap, header / query / key placement, no secret in any error, close.
 */
export function transportCases<M extends ModelIdentity>(env: ContractEnvironment<M>, invoke: (model: M, attempt: RecordingAttempt) => Promise<unknown>): void {
  it('an already-aborted signal rejects with the caller’s abort and sends nothing', async () => {
    const model = await env.make();
    const before = env.upstream.requests.length;
    const reason = new Error('caller gave up before sending');
    expectCallerAbort(await rejection(invoke(model, recordingAttempt(AbortSignal.abort(reason)))), reason);
    expect(env.upstream.requests.length).toBe(before);
  });

  it('an abort mid-request rejects with the caller’s abort (not a TransientError) and frees the exchange', async () => {
    const model = await env.make();
    env.upstream.next({ kind: 'hang' });
    const controller = new AbortController();
    const arrived = env.upstream.arrived();
    const pending = rejection(invoke(model, recordingAttempt(controller.signal)));
    await arrived;
    const reason = new Error('caller gave up mid-request');
    controller.abort(reason);
    expectCallerAbort(await pending, reason);
    await expect.poll(() => env.upstream.inflight).toBe(0);
  });

  const statuses: Array<[number, Category, Record<string, unknown>]> = [
    [400, RequestRejectedError, { statusCode: 400 }],
    [401, SourceDeadError, { statusCode: 401 }],
    [403, SourceDeadError, { statusCode: 403 }],
    [429, TransientError, { statusCode: 429, transientKind: 'rate_limited', retryAfterMs: 2000 }],
    [500, TransientError, { statusCode: 500 }],
  ];
  it.each(statuses)('HTTP %i is a %o in its category', async (status, category, fields) => {
    const model = await env.make();
    env.upstream.next({ kind: 'status', status, headers: { 'retry-after': '2' } });
    const error = await rejection(invoke(model, recordingAttempt()));
    expect(error).toBeInstanceOf(category);
    expect(error).toMatchObject({ sourceName: CONTRACT_SOURCE, ...fields });
  });

  it('timeoutMs bounds the attempt: a TransientError of kind timeout', async () => {
    const model = await env.make();
    env.upstream.next({ kind: 'hang' });
    const error = await rejection(invoke(model, recordingAttempt(undefined, 300)));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'timeout' });
  });

  it('a 2xx body larger than maxResponseBytes is a ResultInvalidError naming the limit', async () => {
    const limit = 64 * 1024;
    const model = await env.make({ maxResponseBytes: limit });
    env.upstream.next({ kind: 'oversized', bytes: 4 * limit });
    const error = await rejection(invoke(model, recordingAttempt()));
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect((error as Error).message).toContain(String(limit));
  });

  it('sends the per-source headers and query, and the key as `authorization: Bearer KEY` by default', async () => {
    const model = await env.make({ apiKey: CONTRACT_KEY, headers: { 'X-Contract-Route': CONTRACT_HEADER_VALUE }, query: { 'api-version': '2024-10-21' } });
    await invoke(model, recordingAttempt());
    const seen = env.upstream.requests.at(-1)!;
    expect(seen.headers['authorization']).toBe(`Bearer ${CONTRACT_KEY}`);
    expect(seen.headers['x-contract-route']).toBe(CONTRACT_HEADER_VALUE);
    expect(seen.query).toMatchObject({ 'api-version': '2024-10-21' });
  });

  it('sends the raw key in a custom apiKeyHeader, and no authorization', async () => {
    const model = await env.make({ apiKey: CONTRACT_KEY, apiKeyHeader: 'api-key' });
    await invoke(model, recordingAttempt());
    const seen = env.upstream.requests.at(-1)!;
    expect(seen.headers['api-key']).toBe(CONTRACT_KEY);
    expect(seen.headers).not.toHaveProperty('authorization');
  });

  it('puts no key and no header value in any error, even when the upstream echoes them', async () => {
    const model = await env.make({ apiKey: CONTRACT_KEY, headers: { 'x-contract-route': CONTRACT_HEADER_VALUE } });
    const echo = JSON.stringify({ error: { message: `bad key ${CONTRACT_KEY} for route ${CONTRACT_HEADER_VALUE}` } });
    const errors: unknown[] = [];
    for (const status of [400, 401, 429, 500]) {
      env.upstream.next({ kind: 'status', status, body: echo });
      errors.push(await rejection(invoke(model, recordingAttempt())));
    }
    for (const error of errors) {
      const e = error as Error & { bodyText?: string };
      const surface = [e.message, e.bodyText ?? '', JSON.stringify(e), String(e.stack)].join('\n');
      expect(surface).not.toContain(CONTRACT_KEY);
      expect(surface).not.toContain(CONTRACT_HEADER_VALUE);
    }
  });

  it('close() is idempotent', async () => {
    const model = await env.make();
    await invoke(model, recordingAttempt());
    await model.close?.();
    await model.close?.();
  });
}
