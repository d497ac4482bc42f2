/**
 * SPEC §11: how an upstream failure becomes one of the four categories. This is the one place
 * allowed to read a body's words (SPEC §13.3): a 429 is told apart from exhausted billing by them.
 */
import {
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  parseRetryAfter,
  summarizeBody,
  type Clock,
  type HeaderBag,
  type PolyGatewayError,
  type SourceConfig,
  type TransientKind,
} from '@pgw/core';
import { isRecord } from './json.js';

export interface HttpFailure {
  status: number;
  headers: HeaderBag;
  /** The raw response body (already capped by the reader). */
  body: string;
}

export interface TranslationContext {
  source: SourceConfig;
  /** The route that failed, e.g. `chat/completions`. */
  route: string;
  warn: (message: string) => void;
  now: Clock;
}

const QUOTA_WORDS = /insufficient_quota|billing/i;

/** A non-2xx answer as an error of the taxonomy. */
export function translateHttpFailure(failure: HttpFailure, ctx: TranslationContext): PolyGatewayError {
  const { status } = failure;
  const bodyText = summarizeBody(redactSecret(failure.body, ctx.source.apiKey));
  const fields = { sourceName: ctx.source.name, statusCode: status, bodyText };
  const describe = (verdict: string) => `${ctx.source.name} ${ctx.route}: HTTP ${status} (${verdict}): ${bodyText}`;

  if (status === 429) {
    if (isQuotaExhausted(failure.body)) return new SourceDeadError({ ...fields, message: describe('quota exhausted') });
    return new TransientError({
      ...fields,
      message: describe('rate limited'),
      retryAfterMs: retryHint(failure.headers, ctx),
      transientKind: 'rate_limited',
    });
  }
  if (status === 408 || status >= 500) {
    return new TransientError({
      ...fields,
      message: describe(status === 408 ? 'upstream request timeout' : 'server error'),
      retryAfterMs: retryHint(failure.headers, ctx),
      transientKind: status === 408 ? 'timeout' : 'server_error',
    });
  }
  if (status === 401 || status === 403) return new SourceDeadError({ ...fields, message: describe('credentials refused') });
  if (status === 404) return new SourceDeadError({ ...fields, message: describe('model or route not found') });
  // A redirect from an API base URL means a misconfigured endpoint: every request would get it.
  if (status < 400) return new SourceDeadError({ ...fields, message: describe('unexpected redirect') });
  return new RequestRejectedError({ ...fields, message: describe('request rejected') });
}

/** Where an answer came from, for the errors its content may raise. */
export interface AnswerOrigin {
  source: SourceConfig;
  route: string;
  status: number;
}

/** A 2xx answer that cannot be used: unparseable, missing choices, wrong shape. */
export function invalidAnswer(origin: AnswerOrigin, issue: string, body: string): ResultInvalidError {
  const bodyText = summarizeBody(redactSecret(body, origin.source.apiKey));
  return new ResultInvalidError({
    message: `${origin.source.name} ${origin.route}: unusable answer (${issue}): ${bodyText}`,
    sourceName: origin.source.name,
    statusCode: origin.status,
    bodyText,
    issues: [issue],
  });
}

/** An `error` event inside a 2xx stream: the upstream failed mid-answer, as a 5xx would have. */
export function failedMidStream(origin: AnswerOrigin, data: string): TransientError {
  const bodyText = summarizeBody(redactSecret(data, origin.source.apiKey));
  return new TransientError({
    message: `${origin.source.name} ${origin.route}: error event in the stream: ${bodyText}`,
    sourceName: origin.source.name,
    statusCode: origin.status,
    bodyText,
    transientKind: 'server_error',
  });
}

/** A 2xx stream that ended without `[DONE]`: the answer may be cut short, so it is never used. */
export function truncatedStream(origin: AnswerOrigin): TransientError {
  return new TransientError({
    message: `${origin.source.name} ${origin.route}: the stream ended without [DONE]`,
    sourceName: origin.source.name,
    statusCode: origin.status,
    transientKind: 'truncated',
  });
}

/** Timeouts, refused or reset connections and broken sockets as TransientError; anything else is not ours to classify. */
export function translateTransportFailure(error: unknown, source: SourceConfig, route: string): TransientError | undefined {
  const code = knownCode(error);
  if (code === undefined) return undefined;
  const transientKind: TransientKind = TIMEOUT_CODES.has(code) ? 'timeout' : 'network';
  return new TransientError({
    message: `${source.name} ${route}: ${transientKind === 'timeout' ? 'timed out' : 'connection failed'} (${code})`,
    sourceName: source.name,
    transientKind,
    cause: error,
  });
}

/** Replaces every occurrence of the API key (a relay may echo it back in an error body). */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret ? text.replaceAll(secret, '[redacted]') : text;
}

function retryHint(headers: HeaderBag, ctx: TranslationContext): number | undefined {
  return parseRetryAfter(headers, { sourceName: ctx.source.name, warn: ctx.warn, now: ctx.now });
}

/** Structured `error.code` / `error.type` decide when present; otherwise the body's words do. */
function isQuotaExhausted(body: string): boolean {
  const error = parseErrorObject(body);
  const structured = [error?.['code'], error?.['type']].filter((v): v is string => typeof v === 'string');
  if (structured.length > 0) return structured.some((v) => QUOTA_WORDS.test(v));
  return QUOTA_WORDS.test(body);
}

function parseErrorObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : undefined;
  } catch {
    return undefined;
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const NETWORK_CODES = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The first transport-level `code` along the cause chain (undici and Node wrap socket errors). */
function knownCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; isRecord(e) && depth < 4; e = e['cause'], depth++) {
    const code = e['code'];
    if (typeof code === 'string' && (TIMEOUT_CODES.has(code) || NETWORK_CODES.has(code))) return code;
  }
  return undefined;
}
