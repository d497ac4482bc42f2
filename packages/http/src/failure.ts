/**
 * How an HTTP failure becomes one of the four error categories (docs/writing-a-provider.md). Every
 * provider calls these, so one upstream answer is classified the same whichever provider met it.
 * This is the one place allowed to read a body's words: a 429 is told apart from exhausted billing
 * by them.
 */
import {
  ContextLengthExceededError,
  redactSecrets,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  parseRetryAfter,
  summarizeBody,
  type Clock,
  type HeaderBag,
  type PolyGatewayError,
  type TransientKind,
} from '@pgw/core';
import { saysContextLengthExceeded } from './context-length.js';
import { isRecord } from './json.js';

/** A non-2xx answer. */
export interface HttpFailure {
  status: number;
  headers: HeaderBag;
  /** The raw response body (the transport caps how much it reads). */
  body: string;
  /** The transport stopped reading at its cap: the body may end inside an echoed secret. */
  cut?: boolean;
}

export interface HttpFailureContext {
  sourceName: string;
  /** Redacted from any upstream text kept (a relay may echo the API key or a header value back). */
  secrets: readonly string[];
  /** The route that failed, e.g. `chat/completions`, for the message. */
  route?: string;
  /** Receives the one `retry_after_not_finite` warning of `parseRetryAfter`. */
  warn: (message: string) => void;
  /** Wall clock for an HTTP-date `Retry-After`. Default `Date.now`. */
  now?: Clock;
}

export interface NetworkFailureContext {
  sourceName: string;
  route?: string;
}

/** `error.code` / `error.type` values of a 429 that mean "no money left", not "slow down". */
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);
/** For bodies without a structured code: plain-text or HTML error pages of relays. */
const QUOTA_WORDS = /insufficient_quota|billing/i;

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/**
 * A non-2xx answer as an error of the taxonomy. The body is redacted, then folded and cut
 * (`summarizeBody`) into `bodyText` and the message; no secret of the endpoint appears.
 */
export function translateHttpFailure(failure: HttpFailure, ctx: HttpFailureContext): PolyGatewayError {
  const { status } = failure;
  const bodyText = summarizeBody(redactSecrets(failure.body, ctx.secrets, { cut: failure.cut === true }));
  const fields = { sourceName: ctx.sourceName, statusCode: status, bodyText };
  const describe = (verdict: string) => `${origin(ctx)}: HTTP ${status} (${verdict}): ${bodyText}`;
  const transient = (verdict: string, transientKind: TransientKind) =>
    new TransientError({ ...fields, message: describe(verdict), transientKind, retryAfterMs: retryHint(failure.headers, ctx) });

  if (status === 429) {
    return isQuotaExhausted(failure.body)
      ? new SourceDeadError({ ...fields, message: describe('quota exhausted') })
      : transient('rate limited', 'rate_limited');
  }
  if (status === 408) return transient('upstream request timeout', 'timeout');
  if (status >= 500 && status < 600) return transient('server error', 'server_error');
  if (status === 401 || status === 403) return new SourceDeadError({ ...fields, message: describe('credentials refused') });
  // Billing state belongs to the source: every request would get the same answer.
  if (status === 402) return new SourceDeadError({ ...fields, message: describe('payment required') });
  if (status === 404) return new SourceDeadError({ ...fields, message: describe('model or route not found') });
  // A redirect from an API base URL means a misconfigured endpoint: every request would get it.
  if (status >= 300 && status < 400) {
    return new SourceDeadError({ ...fields, message: describe('redirect: base URL misconfigured') });
  }
  if (status >= 400 && status < 500) {
    // Read the raw body: the words matter, and redaction may have cut them.
    if (saysContextLengthExceeded(failure.body)) {
      return new ContextLengthExceededError({ ...fields, message: describe('context length exceeded') });
    }
    return new RequestRejectedError({ ...fields, message: describe('request rejected') });
  }
  return new ResultInvalidError({
    ...fields,
    message: describe('unexpected status'),
    issues: [`unexpected HTTP status ${status}`],
  });
}

/**
 * A connection-level failure (refused, reset, DNS, broken socket, undici timeout) as a
 * TransientError, or undefined when `error` is none of these: a bug passes through untranslated.
 * Looks at `error.code` and `error.cause.code` (undici and Node wrap socket errors once).
 */
export function translateNetworkFailure(error: unknown, ctx: NetworkFailureContext): TransientError | undefined {
  const code = [error, causeOf(error)].map(codeOf).find((c) => c !== undefined && (TIMEOUT_CODES.has(c) || NETWORK_CODES.has(c)));
  if (code === undefined) return undefined;
  const timedOut = TIMEOUT_CODES.has(code);
  return new TransientError({
    message: `${origin(ctx)}: ${timedOut ? 'timed out' : 'connection failed'} (${code})`,
    sourceName: ctx.sourceName,
    transientKind: timedOut ? 'timeout' : 'network',
    cause: error,
  });
}

export function origin(ctx: NetworkFailureContext): string {
  return ctx.route === undefined ? `source ${ctx.sourceName}` : `source ${ctx.sourceName} ${ctx.route}`;
}

export function retryHint(headers: HeaderBag, ctx: HttpFailureContext): number | undefined {
  return parseRetryAfter(headers, { sourceName: ctx.sourceName, warn: ctx.warn, now: ctx.now });
}

/**
 * Structured `error.code` / `error.type` decide when the body carries either; otherwise (plain
 * text, HTML, JSON without them) the body's words do.
 */
function isQuotaExhausted(body: string): boolean {
  const error = errorObject(body);
  const structured = [error?.['code'], error?.['type']].filter((v): v is string => typeof v === 'string');
  if (structured.length > 0) return structured.some((v) => QUOTA_CODES.has(v.toLowerCase()));
  return QUOTA_WORDS.test(body);
}

function errorObject(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = isRecord(parsed) ? parsed['error'] : undefined;
  return isRecord(error) ? error : undefined;
}

function causeOf(error: unknown): unknown {
  return isRecord(error) ? error['cause'] : undefined;
}

function codeOf(error: unknown): string | undefined {
  const code = isRecord(error) ? error['code'] : undefined;
  return typeof code === 'string' ? code : undefined;
}

