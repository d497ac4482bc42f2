/**
 * An error reported inside a 2xx answer: a `data:` payload carrying an `error` object, an SSE
 * `event: error`, or a 200 JSON body `{ "error": {...} }` without choices (the OpenAI streaming
 * convention, also used by vLLM and many relays). It is classified exactly like the HTTP error it
 * stands for, so a bad request is not retried and never counts toward a breaker.
 */
import { ContextLengthExceededError, RequestRejectedError, SourceDeadError, TransientError, redactSecrets, summarizeBody, type PolyGatewayError } from '@pgw/core';
import { saysContextLengthExceeded } from './context-length.js';
import { origin, retryHint, translateHttpFailure, type HttpFailureContext } from './failure.js';
import { isRecord } from './json.js';

export interface InBandContext extends HttpFailureContext {
  /** The status of the 2xx answer that carried the error. */
  status: number;
  /** Headers of that answer: a rate-limit error may come with a Retry-After. */
  headers?: Record<string, string | string[] | undefined>;
}

type Verdict = 'rejected' | 'dead' | 'rate_limited';

/** `type` / `code` strings of the OpenAI, Anthropic and vLLM conventions; anything else is transient. */
const VERDICTS: ReadonlyMap<string, Verdict> = new Map([
  ['invalid_request_error', 'rejected'],
  ['authentication_error', 'dead'],
  ['permission_error', 'dead'],
  ['insufficient_quota', 'dead'],
  ['rate_limit_error', 'rate_limited'],
  ['rate_limit_exceeded', 'rate_limited'],
]);

/**
 * The error object a payload carries, or undefined when it carries none: `payload.error` when it
 * is an object or a string; for an `event: error` the payload itself stands for the error.
 */
export function inBandErrorObject(payload: unknown, isErrorEvent = false): Record<string, unknown> | undefined {
  if (!isRecord(payload)) return isErrorEvent ? {} : undefined;
  const error = payload['error'];
  if (isRecord(error)) return error;
  if (typeof error === 'string') return { message: error };
  return isErrorEvent ? payload : undefined;
}

/**
 * Classifies an in-band error. `data` is the raw payload (JSON or not). A numeric `status` or
 * `code` (400–599) decides as that HTTP status would; else the `code` string, then the `type`; an unknown
 * or missing one is a TransientError (the upstream failed mid-answer, as a 5xx would have).
 */
export function translateInBandError(data: string, ctx: InBandContext): PolyGatewayError {
  const error = inBandErrorObject(parseJson(data), true) ?? {};
  const inBand = { ...ctx, route: `${ctx.route ?? ''} in-band error`.trim() };
  const status = httpStatus(error['status']) ?? httpStatus(error['code']);
  if (status !== undefined) return translateHttpFailure({ status, headers: ctx.headers ?? {}, body: data }, inBand);

  const bodyText = summarizeBody(redactSecrets(data, ctx.secrets));
  const fields = { sourceName: ctx.sourceName, statusCode: ctx.status, bodyText };
  // The code is the more specific of the two (`type: invalid_request_error, code: insufficient_quota`).
  const verdict = [error['code'], error['type']].map((v) => (typeof v === 'string' ? VERDICTS.get(v.toLowerCase()) : undefined)).find(Boolean);
  const describe = (what: string) => `${origin(inBand)}: ${what}: ${bodyText}`;
  // A prompt too long for this source is a bad request here, whatever code string came with it.
  if (saysContextLengthExceeded(data)) {
    return new ContextLengthExceededError({ ...fields, message: describe('context length exceeded') });
  }
  switch (verdict) {
    case 'rejected':
      return new RequestRejectedError({ ...fields, message: describe('request rejected') });
    case 'dead':
      return new SourceDeadError({ ...fields, message: describe('credentials or quota refused') });
    case 'rate_limited':
      return new TransientError({
        ...fields,
        message: describe('rate limited'),
        transientKind: 'rate_limited',
        retryAfterMs: retryHint(ctx.headers ?? {}, ctx),
      });
    default:
      return new TransientError({ ...fields, message: describe('upstream failed mid-answer'), transientKind: 'server_error' });
  }
}

function httpStatus(value: unknown): number | undefined {
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
