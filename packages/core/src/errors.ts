/**
 * The error taxonomy of docs/architecture.md#errors. Every class takes one options object, sets `name` to its class
 * name, and is recognised by `instanceof` even across duplicate copies of @pgw/core in one process:
 * each instance carries a `Symbol.for` brand listing the kinds of its class chain.
 */

const KINDS = Symbol.for('@pgw/core.errorKinds');

export const SCOPE_REASONS = [
  'retry_exhausted',
  'circuit_open',
  'quota_full',
  'tenant_quota_full',
  'stalled',
  'no_source',
  'governance_backend',
] as const;
export type ScopeReason = (typeof SCOPE_REASONS)[number];

interface Branded {
  readonly kind?: string;
}

export interface PolyGatewayErrorOptions {
  message: string;
  cause?: unknown;
}

export class PolyGatewayError extends Error {
  static readonly kind: string = 'PolyGatewayError';

  constructor(options: PolyGatewayErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    const kinds = new Set<string>();
    for (let c: unknown = new.target; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, 'kind')) kinds.add((c as Branded).kind as string);
    }
    Object.defineProperty(this, KINDS, { value: kinds, enumerable: false });
    this.name = Object.hasOwn(new.target, 'kind') ? (new.target as Branded).kind! : new.target.name;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // A subclass written by a user (no own `kind`) falls back to the prototype chain.
    if (!Object.hasOwn(this, 'kind')) return Function.prototype[Symbol.hasInstance].call(this, value);
    const kinds = (value as { [KINDS]?: Set<string> } | null | undefined)?.[KINDS];
    return kinds instanceof Set && kinds.has((this as Branded).kind!);
  }
}

/** Fields every upstream-failure category carries. */
export interface UpstreamErrorOptions extends PolyGatewayErrorOptions {
  sourceName?: string;
  statusCode?: number;
  bodyText?: string;
}

abstract class UpstreamError extends PolyGatewayError {
  readonly sourceName: string | undefined;
  readonly statusCode: number | undefined;
  readonly bodyText: string | undefined;

  constructor(options: UpstreamErrorOptions) {
    super(options);
    this.sourceName = options.sourceName;
    this.statusCode = options.statusCode;
    this.bodyText = options.bodyText;
  }
}

/** Why a transient failure happened; drives e.g. "a 429 does not consume the chat attempt budget". */
export type TransientKind = 'rate_limited' | 'server_error' | 'timeout' | 'network' | 'truncated' | 'stalled_stream';

export interface TransientErrorOptions extends UpstreamErrorOptions {
  retryAfterMs?: number;
  transientKind?: TransientKind;
}

/** Retryable: 5xx, 429 rate limit, timeouts, truncated streams. Never reaches the caller. */
export class TransientError extends UpstreamError {
  static override readonly kind: string = 'TransientError';
  readonly retryAfterMs: number | undefined;
  readonly transientKind: TransientKind;

  constructor(options: TransientErrorOptions) {
    super(options);
    this.retryAfterMs = options.retryAfterMs;
    this.transientKind = options.transientKind ?? (options.statusCode === 429 ? 'rate_limited' : 'server_error');
  }
}

/** This source is unusable now (401/403, 404 model, insufficient quota): trips its breaker at once. */
export class SourceDeadError extends UpstreamError {
  static override readonly kind: string = 'SourceDeadError';
}

/** The request itself is bad (400, 413, 422): never retried, never switches source. */
export class RequestRejectedError extends UpstreamError {
  static override readonly kind: string = 'RequestRejectedError';
}

/**
 * The prompt (with the answer it asks room for) does not fit the source's context window. Rejected
 * like any bad request, except that the call may move on once to a source whose declared window
 * (`contextWindow`) is larger; never counts toward a breaker.
 */
export class ContextLengthExceededError extends RequestRejectedError {
  static override readonly kind: string = 'ContextLengthExceededError';
}

export interface ResultInvalidErrorOptions extends UpstreamErrorOptions {
  /** Validation issues, e.g. a schema failure fed back to a structured re-ask. */
  issues?: readonly string[];
}

/** The upstream answered but the result is unusable (bad shape, schema failure, wrong dimension). */
export class ResultInvalidError extends UpstreamError {
  static override readonly kind: string = 'ResultInvalidError';
  readonly issues: readonly string[];

  constructor(options: ResultInvalidErrorOptions) {
    super(options);
    this.issues = options.issues ?? [];
  }
}

export interface GatewayUnavailableErrorOptions {
  scope: string;
  reason: ScopeReason;
  message?: string;
  retryAfterMs?: number;
  perSourceReasons?: Record<string, string>;
  cause?: unknown;
}

const DEFAULT_UNAVAILABLE_RETRY_AFTER_MS = 1000;

/** The whole scope cannot serve now. `retryAfterMs` is never 0: the caller always gets a usable hint. */
export class GatewayUnavailableError extends PolyGatewayError {
  static override readonly kind: string = 'GatewayUnavailableError';
  readonly scope: string;
  readonly reason: ScopeReason;
  readonly retryAfterMs: number;
  readonly perSourceReasons: Readonly<Record<string, string>>;

  constructor(options: GatewayUnavailableErrorOptions) {
    super({
      message: options.message ?? `scope ${options.scope} unavailable: ${options.reason}`,
      cause: options.cause,
    });
    this.scope = options.scope;
    this.reason = options.reason;
    const hint = options.retryAfterMs;
    this.retryAfterMs =
      hint !== undefined && Number.isFinite(hint) && hint > 0 ? Math.ceil(hint) : DEFAULT_UNAVAILABLE_RETRY_AFTER_MS;
    this.perSourceReasons = Object.freeze({ ...(options.perSourceReasons ?? {}) });
  }
}

type FixedReasonOptions = Omit<GatewayUnavailableErrorOptions, 'reason'>;

/** The attempt budget is spent. */
export class AllSourcesExhausted extends GatewayUnavailableError {
  static override readonly kind: string = 'AllSourcesExhausted';
  constructor(options: FixedReasonOptions) {
    super({ ...options, reason: 'retry_exhausted' });
  }
}

/** Every source's breaker is open and the policy is fail_fast. */
export class CircuitOpenError extends GatewayUnavailableError {
  static override readonly kind: string = 'CircuitOpenError';
  constructor(options: FixedReasonOptions) {
    super({ ...options, reason: 'circuit_open' });
  }
}

export interface StreamInterruptedErrorOptions extends Omit<GatewayUnavailableErrorOptions, 'reason'> {
  /** The source whose stream broke off. */
  sourceName: string;
  /** The content that had already reached the caller. */
  partialContent: string;
}

/**
 * A streamed answer (chatStream) failed after some of its content had reached the caller. Tokens
 * already delivered cannot be taken back, so the call is not retried: from its first content token
 * on, its remaining attempt budget is zero — hence an AllSourcesExhausted (`retry_exhausted`), which
 * callers already handle as "retry the call later". `cause` is the attempt's own failure.
 */
export class StreamInterruptedError extends AllSourcesExhausted {
  static override readonly kind: string = 'StreamInterruptedError';
  readonly sourceName: string;
  readonly partialContent: string;

  constructor(options: StreamInterruptedErrorOptions) {
    const { sourceName, partialContent, ...rest } = options;
    super(rest);
    this.sourceName = sourceName;
    this.partialContent = partialContent;
  }
}

export interface GovernanceBackendErrorOptions {
  scope: string;
  message: string;
  retryAfterMs?: number;
  cause?: unknown;
}

const DEFAULT_GOVERNANCE_RETRY_AFTER_MS = 5000;

/** The limiter/breaker store failed. Governance fails closed: no request goes out ungoverned. */
export class GovernanceBackendError extends GatewayUnavailableError {
  static override readonly kind: string = 'GovernanceBackendError';
  constructor(options: GovernanceBackendErrorOptions) {
    super({
      scope: options.scope,
      reason: 'governance_backend',
      message: options.message,
      retryAfterMs: options.retryAfterMs ?? DEFAULT_GOVERNANCE_RETRY_AFTER_MS,
      cause: options.cause,
    });
  }
}

/** A source name unknown to the governance backend: an assembly defect, not retryable. */
export class SourceNotConfiguredError extends PolyGatewayError {
  static override readonly kind: string = 'SourceNotConfiguredError';
  readonly scope: string;
  readonly sourceName: string;

  constructor(options: { scope: string; sourceName: string; cause?: unknown }) {
    super({ message: `source '${options.sourceName}' is not configured in scope ${options.scope}`, cause: options.cause });
    this.scope = options.scope;
    this.sourceName = options.sourceName;
  }
}

/** The caller's own deadline passed. Carries no retry hint: expiry says nothing about when to retry. */
export class CallDeadlineExceeded extends PolyGatewayError {
  static override readonly kind: string = 'CallDeadlineExceeded';
  readonly scope: string;
  readonly deadlineMs: number;

  constructor(options: { scope: string; deadlineMs: number; cause?: unknown }) {
    super({ message: `call deadline of ${options.deadlineMs} ms exceeded in scope ${options.scope}`, cause: options.cause });
    this.scope = options.scope;
    this.deadlineMs = options.deadlineMs;
  }
}

/**
 * A tool's `execute` threw inside `runTools` with `onToolError: 'throw'`: the loop ended there.
 * `cause` is what the tool threw.
 */
export class ToolExecutionError extends PolyGatewayError {
  static override readonly kind: string = 'ToolExecutionError';
  readonly toolName: string;
  readonly toolCallId: string;

  constructor(options: { toolName: string; toolCallId: string; cause?: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super({ message: `tool '${options.toolName}' (call ${options.toolCallId}) failed: ${reason}`, cause: options.cause });
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
  }
}

/** The error a caller's abort surfaces as: Node's convention (`name` AbortError, `code` ABORT_ERR, `cause` = the signal's reason). */
export function abortError(signal: AbortSignal): Error {
  const error = new Error('The operation was aborted', { cause: signal.reason });
  error.name = 'AbortError';
  Object.defineProperty(error, 'code', { value: 'ABORT_ERR', enumerable: true });
  return error;
}

const MEBIBYTE = 1024 * 1024;

/**
 * A call's request is larger than its scope's `{SCOPE}__MAX_REQUEST_MB`: refused before anything
 * starts. A `RangeError`, as every argument check of the clients is.
 */
export class RequestTooLargeError extends RangeError {
  readonly bytes: number;
  readonly limitBytes: number;
  /** The env key of the bound (`LLM__MAX_REQUEST_MB`). */
  readonly key: string;

  constructor(options: { origin: string; bytes: number; limitMb: number; key: string }) {
    super(`${options.origin} is ${(options.bytes / MEBIBYTE).toFixed(1)} MiB; the bound is ${options.limitMb} MiB (${options.key})`);
    this.name = 'RequestTooLargeError';
    this.bytes = options.bytes;
    this.limitBytes = options.limitMb * MEBIBYTE;
    this.key = options.key;
  }
}
