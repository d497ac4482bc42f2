import {
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  parseRetryAfter,
  summarizeBody,
  type HeaderBag,
} from '@pgw/core';

/** Error `code`s of a 429 body that mean "no money left", not "slow down". */
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);

/** Connection-level failures (ours or undici's) that a retry may cure. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

export interface FailureContext {
  sourceName: string;
  /** Redacted from any upstream text we keep (a server may echo it back). */
  apiKey: string | undefined;
  warn: (message: string) => void;
}

/** The body as it may appear in messages and `bodyText`: folded, truncated, API key masked. */
export function safeBodyText(body: string, apiKey: string | undefined): string {
  const masked = apiKey ? body.split(apiKey).join('***') : body;
  return summarizeBody(masked);
}

/** Translates a non-2xx answer into one of the four categories (SPEC §11). */
export function statusError(status: number, headers: HeaderBag, body: string, ctx: FailureContext): Error {
  const bodyText = safeBodyText(body, ctx.apiKey);
  const fields = { sourceName: ctx.sourceName, statusCode: status, bodyText };
  const message = `source ${ctx.sourceName}: HTTP ${status}: ${bodyText}`;
  if (status === 429) {
    if (isQuotaBody(body)) return new SourceDeadError({ ...fields, message });
    const retryAfterMs = parseRetryAfter(headers, { sourceName: ctx.sourceName, warn: ctx.warn });
    return new TransientError({ ...fields, message, retryAfterMs, transientKind: 'rate_limited' });
  }
  if (status === 401 || status === 403 || status === 404) return new SourceDeadError({ ...fields, message });
  if (status === 408) return new TransientError({ ...fields, message, transientKind: 'timeout' });
  if (status >= 500) return new TransientError({ ...fields, message, transientKind: 'server_error' });
  if (status >= 400) return new RequestRejectedError({ ...fields, message });
  // 1xx/3xx: the server answered, but not with anything we can use.
  return new ResultInvalidError({ ...fields, message, issues: [`unexpected HTTP status ${status}`] });
}

function isQuotaBody(body: string): boolean {
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; type?: unknown } } | null)?.error;
    return QUOTA_CODES.has(String(error?.code)) || QUOTA_CODES.has(String(error?.type));
  } catch {
    return false;
  }
}

/** A TransientError for a connection failure, or undefined when `error` is not one (then it is a bug to surface). */
export function networkError(error: unknown, sourceName: string): TransientError | undefined {
  const code = errorCode(error) ?? errorCode((error as { cause?: unknown } | null)?.cause);
  if (code === undefined || !NETWORK_CODES.has(code)) return undefined;
  return new TransientError({
    message: `source ${sourceName}: connection failed (${code})`,
    sourceName,
    transientKind: code.endsWith('TIMEOUT') || code === 'ETIMEDOUT' ? 'timeout' : 'network',
    cause: error,
  });
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function invalidResult(sourceName: string, what: string, issues: string[], status = 200): ResultInvalidError {
  return new ResultInvalidError({
    message: `source ${sourceName}: unusable ${what}: ${issues.join('; ')}`,
    sourceName,
    statusCode: status,
    issues,
  });
}
