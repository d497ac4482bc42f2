import type { IncomingHttpHeaders } from 'node:http';
import type { FormData, Pool } from 'undici';
import {
  MAX_TIMER_DELAY_MS,
  TransientError,
  abortError,
  combineSignals,
  translateHttpFailure,
  translateNetworkFailure,
  type HttpFailureContext,
} from '@pgw/core';

export interface AttemptRequest {
  pool: Pool;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: FormData;
  timeoutMs: number;
  callerSignal: AbortSignal | undefined;
  failure: HttpFailureContext;
}

export interface AttemptResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Uint8Array;
}

/**
 * One HTTP exchange under the per-attempt timeout, body included. A 2xx answer is returned; anything
 * else is thrown in its category. The caller's abort surfaces as `abortError(callerSignal)`, never as
 * a TransientError; our own timeout is a TransientError('timeout').
 */
export async function sendAttempt(request: AttemptRequest): Promise<AttemptResponse> {
  const { sourceName } = request.failure;
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new Error(`per-attempt timeout of ${request.timeoutMs} ms`)),
    Math.min(request.timeoutMs, MAX_TIMER_DELAY_MS),
  );
  const combined = combineSignals([request.callerSignal, timeout.signal]);
  let response: AttemptResponse;
  try {
    const res = await request.pool.request({
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: combined.signal,
    });
    response = { statusCode: res.statusCode, headers: res.headers, body: new Uint8Array(await res.body.arrayBuffer()) };
  } catch (error) {
    if (request.callerSignal?.aborted) throw abortError(request.callerSignal);
    if (timeout.signal.aborted) {
      throw new TransientError({
        message: `source ${sourceName}: no complete answer within ${request.timeoutMs} ms`,
        sourceName,
        transientKind: 'timeout',
      });
    }
    throw translateNetworkFailure(error, request.failure) ?? error;
  } finally {
    clearTimeout(timer);
    combined.dispose();
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const body = Buffer.from(response.body).toString('utf8');
  throw translateHttpFailure({ status: response.statusCode, headers: response.headers, body }, request.failure);
}
