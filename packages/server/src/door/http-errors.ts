/**
 * The one place that turns an error into an HTTP answer in OpenAI's error shape: a table keyed by
 * error class, most specific first. Classification is by class and structured fields, never by
 * message text; an error nobody listed is a 500 whose message says nothing of its internals.
 */
import { BatchInputError } from '@pgw/batch';
import {
  BudgetExceededError,
  CallDeadlineExceeded,
  ContextLengthExceededError,
  GatewayUnavailableError,
  MissingPackageError,
  RequestRejectedError,
  RequestTooLargeError,
  ResultInvalidError,
  SettingsError,
  SourceNotConfiguredError,
} from '@pgw/client';
import { SourceDeadError, TransientError, type ScopeReason } from '@pgw/core';
import { InvalidRequestFieldError, type WireFailure } from '@pgw/wire';
import { errorCodes } from 'fastify';
import {
  BatchNotEndedError,
  HostNotAllowedError,
  FileTooLargeError,
  ObjectNotFoundError,
  ResponseNotFoundError,
  ServerDrainingError,
  StoredResponsesUnavailableError,
  UnauthorizedError,
  UnknownModelError,
} from './request-error.js';
import { AdminKeyRequiredError, AdminRateLimitedError } from '../keys/admin-gate.js';
import { KeyNotFoundError, KeyNotLiveError } from '../keys/key-admin.js';
import { KeyStoreUnavailableError } from '../keys/stored-keys.js';

/** What the server answers for a failed request: the failure every protocol tells, and what its headers add. */
export interface FailureAnswer extends WireFailure {
  /** Sent as `Retry-After` (whole seconds, rounded up) and `retry-after-ms` (exact). */
  retryAfterMs?: number | undefined;
  /** Sent as `x-should-retry: false`: no retry can succeed before `retryAfterMs` (a spent budget). */
  final?: true;
  /** Further answer headers (the budget's reset time). */
  headers?: Readonly<Record<string, string>>;
  /** No row matched: a fault of the server, whose detail goes to the log and never to the caller. */
  internal?: true;
}

// An abstract or concrete error class: the table only tests `instanceof`.
type ErrorClass<E> = abstract new (...args: never[]) => E;
type Row<E = never> = readonly [ErrorClass<E>, (error: E) => FailureAnswer];

const row = <E>(errorClass: ErrorClass<E>, map: (error: E) => FailureAnswer): Row => [errorClass, map] as unknown as Row;

const failure = (status: number, type: string, code: string | null, message: string, param: string | null = null): FailureAnswer => ({
  status,
  type,
  code,
  param,
  message,
});

/** Most specific class first: the first row whose class the error is an instance of wins. */
const ERROR_TABLE: readonly Row[] = [
  row(UnauthorizedError, (e) => failure(401, 'invalid_request_error', 'invalid_api_key', e.message)),
  row(HostNotAllowedError, (e) => failure(403, 'invalid_request_error', 'host_not_allowed', e.message)),
  row(ServerDrainingError, (e) => ({ ...failure(503, 'service_unavailable', 'draining', e.message), retryAfterMs: DRAINING_RETRY_MS })),
  row(UnknownModelError, (e) => failure(404, 'invalid_request_error', 'model_not_found', e.message, 'model')),
  row(InvalidRequestFieldError, (e) => failure(400, 'invalid_request_error', 'invalid_value', e.message, e.param)),
  row(ResponseNotFoundError, (e) => failure(404, 'invalid_request_error', null, e.message)),
  row(ObjectNotFoundError, (e) => failure(404, 'invalid_request_error', 'not_found', e.message)),
  row(BatchNotEndedError, (e) => failure(400, 'invalid_request_error', 'batch_not_ended', e.message)),
  row(FileTooLargeError, (e) => failure(413, 'invalid_request_error', 'file_too_large', e.message, 'file')),
  row(AdminKeyRequiredError, (e) => failure(403, 'invalid_request_error', 'admin_key_required', e.message)),
  row(AdminRateLimitedError, (e) => ({ ...failure(429, 'rate_limit_exceeded', 'admin_rate_limited', e.message), retryAfterMs: e.retryAfterMs })),
  row(KeyNotFoundError, (e) => failure(404, 'invalid_request_error', 'not_found', e.message, 'id')),
  row(KeyNotLiveError, (e) => failure(409, 'invalid_request_error', 'key_not_live', e.message, 'id')),
  row(KeyStoreUnavailableError, (e) => ({ ...failure(503, 'service_unavailable', 'key_store_unavailable', e.message), retryAfterMs: STORE_RETRY_MS })),
  row(StoredResponsesUnavailableError, (e) => ({ ...failure(503, 'service_unavailable', 'store_unavailable', e.message), retryAfterMs: STORE_RETRY_MS })),
  // The body as HTTP brought it, before any field is read.
  row(errorCodes.FST_ERR_CTP_INVALID_JSON_BODY, () => failure(400, 'invalid_request_error', 'invalid_json', 'The body is not valid JSON', 'body')),
  row(errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY, () => failure(400, 'invalid_request_error', 'invalid_json', 'The body is empty', 'body')),
  row(errorCodes.FST_ERR_CTP_BODY_TOO_LARGE, () => failure(413, 'invalid_request_error', 'request_too_large', 'The body is larger than PGW_SERVER__MAX_REQUEST_MB', 'body')),
  row(errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE, () => failure(415, 'invalid_request_error', 'unsupported_media_type', 'The body must be application/json', 'body')),
  row(BatchInputError, (e) => failure(400, 'invalid_request_error', 'invalid_batch_line', e.message, 'input_file_id')),
  row(RequestTooLargeError, (e) => failure(413, 'invalid_request_error', 'request_too_large', e.message, 'messages')),
  // A spent budget is OpenAI's "out of credit": 429 insufficient_quota, retry when the period resets.
  row(BudgetExceededError, (e) => ({
    ...failure(429, 'insufficient_quota', 'budget_exceeded', e.message),
    retryAfterMs: e.retryAfterMs,
    final: true,
    ...(e.resetAt !== undefined && { headers: { 'x-pgw-budget-reset': new Date(e.resetAt).toISOString() } }),
  })),
  // A full quota, the scope's or the caller's own tenant's, is the caller's rate limit; the rest is the server's trouble.
  row(GatewayUnavailableError, (e) => ({
    ...(RATE_LIMITED.has(e.reason) ? failure(429, 'rate_limit_exceeded', e.reason, e.message) : failure(503, 'service_unavailable', e.reason, e.message)),
    retryAfterMs: e.retryAfterMs,
  })),
  row(CallDeadlineExceeded, (e) => failure(504, 'timeout', 'call_deadline_exceeded', e.message)),
  row(ContextLengthExceededError, (e) => failure(400, 'invalid_request_error', 'context_length_exceeded', e.message, 'messages')),
  row(RequestRejectedError, (e) => failure(400, 'invalid_request_error', 'upstream_rejected', e.message)),
  row(ResultInvalidError, (e) => failure(502, 'upstream_error', 'result_invalid', e.message)),
  row(SourceDeadError, (e) => failure(502, 'upstream_error', 'source_dead', e.message)),
  row(TransientError, (e) => ({ ...failure(502, 'upstream_error', 'upstream_transient', e.message), ...(e.retryAfterMs && { retryAfterMs: e.retryAfterMs }) })),
  // Configuration is the operator's fault, not the caller's.
  row(SettingsError, (e) => failure(500, 'server_error', 'configuration_error', e.message)),
  row(SourceNotConfiguredError, (e) => failure(500, 'server_error', 'configuration_error', e.message)),
  row(MissingPackageError, (e) => failure(500, 'server_error', 'configuration_error', e.message)),
];

const RATE_LIMITED: ReadonlySet<ScopeReason> = new Set(['quota_full', 'tenant_quota_full']);
/** A new call during the drain: another instance (or this one's successor) can take it at once. */
const DRAINING_RETRY_MS = 1000;
/** The store's Redis failing over takes about this long. */
const STORE_RETRY_MS = 1000;
const INTERNAL: FailureAnswer = { ...failure(500, 'server_error', 'internal_error', 'The server failed to handle the request'), internal: true };

export function failureAnswer(error: unknown): FailureAnswer {
  for (const [errorClass, map] of ERROR_TABLE) if (error instanceof errorClass) return map(error as never);
  return frameworkFailure(error) ?? INTERNAL;
}

/** Fastify's own request errors (a bad URL, a malformed body, a Content-Length that lies): the status it gives, in OpenAI's shape. */
function frameworkFailure(error: unknown): FailureAnswer | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code !== 'string' || !code.startsWith('FST_') || typeof statusCode !== 'number' || statusCode < 400 || statusCode > 499) return undefined;
  return failure(statusCode, 'invalid_request_error', 'bad_request', error.message);
}

/**
 * The headers of an error answer: when to retry (`Retry-After` in whole seconds, never 0, which
 * invites an immediate retry storm; `retry-after-ms` exact, which the official SDKs prefer), whether
 * to (`x-should-retry: false`, which they honour), and the row's own.
 */
export function failureHeaders(failure: FailureAnswer): Record<string, string> {
  const headers: Record<string, string> = { ...failure.headers };
  if (failure.retryAfterMs !== undefined) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(failure.retryAfterMs / 1000)));
    headers['retry-after-ms'] = String(Math.max(1, Math.ceil(failure.retryAfterMs)));
  }
  if (failure.final) headers['x-should-retry'] = 'false';
  return headers;
}
