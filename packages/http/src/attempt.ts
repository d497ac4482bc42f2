/**
 * One HTTP attempt, the same for every provider: the request under an AttemptScope (caller's
 * abort, total timeout, optional stream liveness), non-2xx answers and network failures translated
 * to the error taxonomy, 2xx bodies read under a size cap, and the body destroyed if not read to its end.
 */
import type { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher, FormData } from 'undici';
import { PolyGatewayError, abortError, type AttemptContext, type Clock } from '@pgw/core';
import { AttemptScope } from './attempt-scope.js';
import { ERROR_BODY_LIMIT_BYTES, announcesAtMost, cappedChunks, eachCappedChunk, readCappedBytes, readCappedText } from './body.js';
import type { Endpoint } from './endpoint.js';
import { translateHttpFailure, translateNetworkFailure, type HttpFailureContext } from './failure.js';
import type { LivenessLimits } from './liveness-timer.js';

export interface HttpAttempt {
  dispatcher: Dispatcher;
  endpoint: Endpoint;
  /** Path below the base URL, e.g. `chat/completions`. */
  route: string;
  method: 'GET' | 'POST';
  /** This request's own headers (content-type, accept, user-agent); the endpoint's are added. */
  headers?: Record<string, string>;
  body?: string | FormData;
  attempt: Pick<AttemptContext, 'signal' | 'sourceName' | 'timeoutMs'>;
  /** A stream's first-token / inter-token limits: armed when the request is sent. */
  liveness?: LivenessLimits;
  /** A stream's cap of its total time: the attempt's timeout is the smaller of the two. */
  maxTotalMs?: number;
  /** Cap of a 2xx body. */
  maxResponseBytes: number;
  /** Receives non-fatal oddities (a non-finite Retry-After). */
  warn: (message: string) => void;
  /** Wall clock for an HTTP-date Retry-After and `dispatchedAt`. Default `Date.now`. */
  now?: Clock;
}

/** A 2xx answer as the reader of one attempt gets it. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** When the request was handed to the dispatcher (by `now`). */
  readonly dispatchedAt: number;
  /** For errors found inside the answer (in-band errors): source, route, secrets, warn, clock. */
  readonly failure: HttpFailureContext;
  /** The body's chunks; more than `maxResponseBytes` fails with a ResultInvalidError naming the limit. */
  chunks(): AsyncIterable<Uint8Array>;
  /** The same chunks handed to `onChunk` as they arrive (a stream's reader: no promise per chunk); what it throws ends the read. */
  eachChunk(onChunk: (chunk: Uint8Array) => void): Promise<void>;
  bytes(): Promise<Buffer>;
  text(): Promise<string>;
  /** A token arrived: restarts the inter-token clock. */
  tokenSeen(): void;
  /** The attempt was cancelled (the caller aborted, or one of its limits fired): a reader forwards nothing more. A plain field read, cheap per token. */
  readonly cancelled: boolean;
  /** The answer is complete: liveness no longer matters (the total timeout still bounds the rest). */
  stopLiveness(): void;
}

/** A 2xx answer, built for every attempt: its methods live on the class (docs/decisions.md#lean-hot-path). */
class AttemptAnswer implements HttpAnswer {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly dispatchedAt: number,
    readonly failure: HttpFailureContext & { route: string },
    private readonly body: Dispatcher.ResponseData['body'],
    private readonly maxResponseBytes: number,
    private readonly scope: AttemptScope,
  ) {}

  chunks(): AsyncIterable<Uint8Array> {
    const { sourceName, route } = this.failure;
    return cappedChunks(this.body, this.headers, this.maxResponseBytes, { sourceName, route, status: this.status });
  }

  eachChunk(onChunk: (chunk: Uint8Array) => void): Promise<void> {
    const { sourceName, route } = this.failure;
    return eachCappedChunk(this.body, this.headers, this.maxResponseBytes, { sourceName, route, status: this.status }, onChunk);
  }

  bytes(): Promise<Buffer> {
    return readCappedBytes(this.chunks());
  }

  text(): Promise<string> {
    // A Content-Length within the cap bounds the body already (undici reads no byte past it): undici's
    // own reader is far cheaper per answer than iterating the stream.
    if (announcesAtMost(this.headers, this.maxResponseBytes)) return this.body.text();
    return this.bytes().then((bytes) => bytes.toString('utf8'));
  }

  tokenSeen(): void {
    this.scope.tokenSeen();
  }

  get cancelled(): boolean {
    return this.scope.cancel.aborted;
  }

  stopLiveness(): void {
    this.scope.stopLiveness();
  }
}

/** Sends one request and hands a 2xx answer to `read`; everything else is thrown in its category. */
export async function sendAttempt<T>(request: HttpAttempt, read: (answer: HttpAnswer) => Promise<T>): Promise<T> {
  const { endpoint, attempt } = request;
  if (!(typeof attempt.timeoutMs === 'number' && attempt.timeoutMs > 0)) {
    throw new RangeError(`source ${attempt.sourceName}: attempt.timeoutMs must be a positive number of milliseconds, got ${String(attempt.timeoutMs)}`);
  }
  const target = endpoint.target(request.route);
  const scope = attemptScope(request);
  const dispatchedAt = (request.now ?? Date.now)();
  let response: Dispatcher.ResponseData | undefined;
  try {
    response = await request.dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: request.method,
      headers: endpoint.requestHeaders(request.headers),
      body: request.body,
      // undici takes an EventEmitter-style signal; the handle is one (typed as its EventEmitter).
      signal: scope.cancel as unknown as EventEmitter,
    });
    const { statusCode: status, headers, body } = response;
    if (status < 200 || status >= 300) {
      const { text, cut } = await readCappedText(body, ERROR_BODY_LIMIT_BYTES);
      throw translateHttpFailure({ status, headers, body: text, cut }, failureContext(request));
    }
    const result = await read(new AttemptAnswer(status, headers, dispatchedAt, failureContext(request), body, request.maxResponseBytes, scope));
    // Cancellation wins even over an answer that raced it.
    if (attempt.signal.aborted) throw abortError(attempt.signal);
    return result;
  } catch (error) {
    const outcome = scope.outcome(error);
    if (outcome !== error || error instanceof PolyGatewayError) throw outcome;
    throw translateNetworkFailure(error, failureContext(request)) ?? error;
  } finally {
    scope.dispose();
    // A body not read to its end would pin its socket: destroying it closes the connection.
    if (response !== undefined && !response.body.readableEnded) response.body.destroy();
  }
}

/** Outside `sendAttempt`: a suspended async function keeps its temporaries, the options object included. */
function attemptScope({ attempt, route, maxTotalMs, liveness }: HttpAttempt): AttemptScope {
  return new AttemptScope({
    callerSignal: attempt.signal,
    sourceName: attempt.sourceName,
    route,
    totalMs: maxTotalMs === undefined ? attempt.timeoutMs : Math.min(attempt.timeoutMs, maxTotalMs),
    liveness,
  });
}

/** Built when an answer or a failure needs it: an attempt waiting for its answer holds none. */
function failureContext(request: HttpAttempt): HttpFailureContext & { route: string } {
  return { sourceName: request.attempt.sourceName, secrets: request.endpoint.secrets, route: request.route, warn: request.warn, now: request.now ?? Date.now };
}
