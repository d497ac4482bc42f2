/**
 * What an AI SDK provider throws, as one of the library's categories: an `APICallError`'s status,
 * headers (`retry-after`, `retry-after-ms`) and body go through the same translation as an HTTP
 * answer of this library's own providers (`@pgw/http`), so a 429 of exhausted quota, a context
 * length refusal or a 529 are told apart exactly as there. An error part of a stream (an error
 * inside a 200 answer) is classified like the HTTP error it stands for.
 */
import { APICallError, UnsupportedFunctionalityError } from '@ai-sdk/provider';
import { PolyGatewayError, RequestRejectedError, ResultInvalidError, TransientError } from '@pgw/core';
import { inBandErrorObject, translateHttpFailure, translateInBandError, translateNetworkFailure, type HttpFailureContext } from '@pgw/http';

/** AI SDK errors that say the answer came but cannot be used. */
const UNUSABLE_ANSWER = new Set(['AI_TypeValidationError', 'AI_JSONParseError', 'AI_InvalidResponseDataError', 'AI_EmptyResponseBodyError', 'AI_NoContentGeneratedError']);

export type FailureContext = HttpFailureContext;

export function classifyFailure(error: unknown, ctx: FailureContext): unknown {
  const own = ownError(error);
  if (own !== undefined) return own;
  if (APICallError.isInstance(error)) return apiCallFailure(error, ctx);
  // What the request asks cannot be said to this model (a custom tool): no other attempt of it would succeed.
  if (UnsupportedFunctionalityError.isInstance(error)) return new RequestRejectedError({ message: `source ${ctx.sourceName}: ${error.message}`, sourceName: ctx.sourceName });
  if (isAiSdkError(error) && UNUSABLE_ANSWER.has(error.name)) {
    return new ResultInvalidError({ message: `source ${ctx.sourceName}: unusable answer (${error.name})`, sourceName: ctx.sourceName, issues: [error.name] });
  }
  return translateNetworkFailure(error, ctx) ?? error;
}

/** An error part of a stream: the provider's parsed error object (or the raw chunk that carried it, which keeps every field). */
export function streamErrorFailure(error: unknown, rawChunk: unknown, ctx: FailureContext): unknown {
  // What providers say of a stream that ended before its finish: cut, as a stream without [DONE] is here.
  if (isAiSdkError(error) && error.name === 'AI_InvalidResponseDataError') {
    return new TransientError({ message: `source ${ctx.sourceName}: the stream ended before its finish`, sourceName: ctx.sourceName, transientKind: 'truncated' });
  }
  if (error instanceof Error) return classifyFailure(error, ctx);
  const carried = inBandErrorObject(rawChunk) ?? (typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : { message: String(error) });
  return translateInBandError(JSON.stringify({ error: carried }), { ...ctx, status: 200 });
}

function apiCallFailure(error: APICallError, ctx: FailureContext): PolyGatewayError {
  const status = error.statusCode;
  const headers = error.responseHeaders ?? {};
  const body = error.responseBody ?? '';
  if (status === undefined) {
    const network = translateNetworkFailure(error.cause, ctx);
    if (network !== undefined) return network;
    const fields = { sourceName: ctx.sourceName, message: `source ${ctx.sourceName}: ${error.isRetryable ? 'connection failed' : 'request refused before an answer'}` };
    return error.isRetryable ? new TransientError({ ...fields, transientKind: 'network' }) : new RequestRejectedError(fields);
  }
  if (status >= 200 && status < 300) {
    // A 2xx the provider could not use: an error object inside it, or a body of the wrong shape.
    if (inBandErrorObject(parsed(body)) !== undefined) return translateInBandError(body, { ...ctx, status, headers });
    return new ResultInvalidError({ message: `source ${ctx.sourceName}: unusable ${status} answer`, sourceName: ctx.sourceName, statusCode: status, issues: ['the provider could not read the answer'] });
  }
  return translateHttpFailure({ status, headers, body }, ctx);
}

/** A library error anywhere in the cause chain (one thrown by a `fetch` the provider was given) is the verdict itself. */
function ownError(error: unknown): PolyGatewayError | undefined {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; at = (at as { cause?: unknown }).cause, depth++) {
    if (at instanceof PolyGatewayError) return at;
  }
  return undefined;
}

function isAiSdkError(error: unknown): error is Error {
  return error instanceof Error && error.name.startsWith('AI_');
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
