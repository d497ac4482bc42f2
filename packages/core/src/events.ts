/**
 * Events of the governed path, for any number of subscribers (the telemetry-row emitter is one,
 * `@pgw/telemetry-otel` another, a user's logger a third). A subscriber implements only the
 * methods it wants: an event nobody listens to is never built. Subscribers are called
 * synchronously on the call path; one that throws is caught and warned about once, never failing
 * the call. Durations are milliseconds of the client's clock (`now`).
 */
import type { BreakerTransition } from './ports.js';
import type { ModelPrice } from './pricing.js';
import type { Effort, Operation, ThinkingObservation, Usage } from './types.js';
import type { TelemetryStatus } from './telemetry.js';
import type { Priority } from './tenants.js';

/**
 * The logical call an event belongs to. The same dimensions for every event of one call; per-call
 * state of a subscriber is keyed by `logicalCallId` (unique per call unless the caller reuses one).
 */
export interface CallInfo {
  readonly logicalCallId: string;
  readonly scope: string;
  readonly operation: Operation;
  /** Clock time the logical call started. */
  readonly startedAt: number;
  readonly sessionId?: string;
  readonly parentCallId?: string;
  readonly tenantId?: string;
  /** The call's priority class (undefined = interactive). */
  readonly priority?: Priority;
  readonly meta?: Record<string, unknown>;
  readonly reasoningEffort?: Effort;
}

/** Where a model sends its requests, when it has one address (filled by the built-in providers). */
export interface ModelEndpoint {
  readonly address: string;
  readonly port: number;
}

/** What an event says of the model behind a source. */
export interface ModelInfo {
  readonly provider: string;
  readonly modelId: string;
  readonly endpoint?: ModelEndpoint;
}

export interface CallStartEvent {
  readonly call: CallInfo;
  /** The distinct models of the scope's sources, sorted (the request model when there is one). */
  readonly models: readonly string[];
}

/** How an attempt ended, by error category. */
export type AttemptOutcomeCategory = 'success' | 'transient' | 'dead' | 'rejected' | 'invalid' | 'cancelled' | 'error';

export interface CallEndEvent {
  readonly call: CallInfo;
  /** `cancelled` = the caller's abort; a library verdict (deadline, unavailable…) is an `error`. */
  readonly status: TelemetryStatus;
  readonly error?: unknown;
  readonly attempts: number;
  readonly totalLatencyMs: number;
  readonly sourcesTried: readonly string[];
  /** Present on success. */
  readonly result?: CallResultSummary;
}

export interface CallResultSummary {
  /** The source that answered (the last batch's for embeddings). */
  readonly source?: string;
  readonly model?: string;
  readonly usage?: Usage;
  readonly costUsd?: number;
  readonly cached: boolean;
}

export interface AttemptStartEvent {
  readonly call: CallInfo;
  readonly callId: string;
  /** 1-based number of this attempt in its logical call. */
  readonly attempt: number;
  readonly source: string;
  readonly model: ModelInfo;
}

/** What an attempt showed of its exchange: content is read only by the subscribers that ask for it. */
export interface AttemptContent {
  readonly model?: string;
  readonly requestText?: string;
  readonly responseText?: string;
  readonly thinkingObservation?: ThinkingObservation;
  readonly ttftMs?: number;
  /** Tool calls of a chat answer. */
  readonly toolCalls?: number;
}

export interface AttemptEndEvent extends AttemptStartEvent {
  /** The source's own price, when it has one (it wins over the price table for this attempt's cost). */
  readonly sourcePrice?: ModelPrice;
  readonly status: TelemetryStatus;
  readonly outcome: AttemptOutcomeCategory;
  readonly error?: unknown;
  /** The upstream's HTTP status when the error carries one. */
  readonly statusCode?: number;
  readonly usage?: Usage;
  readonly latencyMs: number;
  readonly retryAfterMs?: number;
  /** Built on first read (message transcripts are not free). */
  readonly content: AttemptContent;
}

export interface RetryScheduledEvent {
  readonly call: CallInfo;
  /** The attempt that failed. */
  readonly attempt: number;
  readonly source: string;
  /** The backoff before the next attempt; 0 for a dead source (failover at once). */
  readonly delayMs: number;
  /** `transient:<kind>[ status]` or `dead[ status]`. */
  readonly reason: string;
}

/**
 * A source's breaker changed state through this process's attempt: the governor that owns the state
 * reported it. With a shared (Redis) breaker each transition is reported once, by the process whose
 * admission or verdict made it.
 */
export interface BreakerStateEvent extends BreakerTransition {
  readonly scope: string;
  readonly source: string;
}

export interface QuotaWaitStartEvent {
  readonly call: CallInfo;
  /** Why every source refused: quotas full, the tenant at its own bound, breakers open, or a rate limit being waited out. */
  readonly reason: 'quota_full' | 'tenant_quota_full' | 'circuit_open' | 'rate_limited';
  readonly delayMs: number;
  readonly perSourceReasons: Readonly<Record<string, string>>;
}

export interface QuotaWaitEndEvent {
  readonly call: CallInfo;
  readonly reason: QuotaWaitStartEvent['reason'];
  readonly waitedMs: number;
}

export interface CacheHitEvent {
  readonly call: CallInfo;
  readonly source: string;
  readonly model: string;
  readonly content: string;
  readonly thinkingObservation: ThinkingObservation;
  /** Tool calls of the stored answer. */
  readonly toolCalls?: number;
}

export interface CacheMissEvent {
  readonly call: CallInfo;
}

export interface FirstTokenEvent {
  readonly call: CallInfo;
  readonly callId: string;
  readonly source: string;
  /** From the attempt's start. */
  readonly ttftMs: number;
}

/** A call was refused for good by its scope's spend budget, or its key's (it ends with BudgetExceededError). */
export interface BudgetRefusedEvent {
  readonly call: CallInfo;
  readonly scope: string;
  readonly tenantId?: string;
  /** Present when the key's own budget refused: the key's id. */
  readonly keyId?: string;
  readonly budgetUsd: number;
  readonly spentUsd: number;
  readonly resetAt: number | undefined;
}

/** The events, by subscriber method. */
export interface GatewayEvents {
  onCallStart: CallStartEvent;
  onCallEnd: CallEndEvent;
  onAttemptStart: AttemptStartEvent;
  onAttemptEnd: AttemptEndEvent;
  onRetryScheduled: RetryScheduledEvent;
  onBreakerStateChange: BreakerStateEvent;
  onQuotaWaitStart: QuotaWaitStartEvent;
  onQuotaWaitEnd: QuotaWaitEndEvent;
  onCacheHit: CacheHitEvent;
  onCacheMiss: CacheMissEvent;
  onFirstToken: FirstTokenEvent;
  onBudgetRefused: BudgetRefusedEvent;
}

export type GatewayEventName = keyof GatewayEvents;

export const GATEWAY_EVENT_NAMES: readonly GatewayEventName[] = [
  'onCallStart',
  'onCallEnd',
  'onAttemptStart',
  'onAttemptEnd',
  'onRetryScheduled',
  'onBreakerStateChange',
  'onQuotaWaitStart',
  'onQuotaWaitEnd',
  'onCacheHit',
  'onCacheMiss',
  'onFirstToken',
  'onBudgetRefused',
];

/** Listens to the events it has a method for. `name` labels its warning when it throws. */
export type GatewaySubscriber = { readonly name?: string } & { readonly [K in GatewayEventName]?: (event: GatewayEvents[K]) => void };
