// Where the behaviours live: types.ts holds the public value types and settings.ts a scope's settings
// (tenants.ts its tenants, keys.ts a stored key's bounds, thinking.ts the reasoning profiles); errors.ts is the error taxonomy;
// ports.ts the ports (Governor, Lease, Cache, TelemetryRecorder; key-store.ts the KeyStore), governor-of.ts a Governor over a
// separate limiter and breaker, ticket-lease.ts the lease every governor hands out; models.ts the
// model spec and events.ts the events subscribers observe; http-helpers.ts the helpers a provider uses
// (a 429's Retry-After is parsed by parseRetryAfter there), wire-tool-call.ts a tool call on the wire,
// chat-delta.ts a whole answer as one delta; budget.ts, pricing.ts and telemetry.ts the arithmetic of
// spend and rows, transcript.ts a row's messages; recorders.ts the storeless recorders and
// queued-recorder.ts over telemetry-queue.ts what every store shares. Shared plumbing: signals.ts
// (AbortSignal), deadline.ts (the call deadline), arguments.ts (argument checks), redaction.ts
// (secrets kept out of text), well-formed.ts (lone surrogates), sql-transaction.ts (one SQL transaction
// of the PostgreSQL adapters, and what becomes of a failed client), key-rows.ts (a stored key as the SQL key stores keep it).
// batch-engine.ts is the batch engine port (a job's items and results, a tenant's files) that
// @pgw/batch's engines implement.
// The public surface of @pgw/core, curated by hand (scripts/check-exports.mjs checks it against
// exports.txt): the value types, the error taxonomy, the ports adapters implement, the model port and
// the few helpers a provider author is told to use (docs/writing-a-provider.md). The helpers the
// workspace packages share are in ./internal.ts (`@pgw/core/internal`), which is not for users.
export { isSuccess, JOB_STATUSES } from './batch-engine.js';
export type { BatchEngine, BatchFileStore, BatchItem, ItemResponse, ItemResult, JobProgress, JobSpec, JobStatus, PauseReason, StoredFile } from './batch-engine.js';
export { wholeAnswerDelta } from './chat-delta.js';
export { toWireCall, wireCallParts } from './wire-tool-call.js';
export { estimatePromptTokens, transcript } from './transcript.js';
export {
  abortError,
  AllSourcesExhausted,
  CallDeadlineExceeded,
  CircuitOpenError,
  ContextLengthExceededError,
  GatewayUnavailableError,
  type GatewayUnavailableErrorOptions,
  GovernanceBackendError,
  type GovernanceBackendErrorOptions,
  PolyGatewayError,
  type PolyGatewayErrorOptions,
  RequestRejectedError,
  RequestTooLargeError,
  ResultInvalidError,
  type ResultInvalidErrorOptions,
  SCOPE_REASONS,
  type ScopeReason,
  SourceDeadError,
  SourceNotConfiguredError,
  StreamInterruptedError,
  type StreamInterruptedErrorOptions,
  ToolExecutionError,
  TransientError,
  type TransientErrorOptions,
  type TransientKind,
  type UpstreamErrorOptions,
} from './errors.js';
export {
  type CallStats,
  type ChatDelta,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type ChatRole,
  type ContentPart,
  type Effort,
  EFFORTS,
  type EmbedRequest,
  type EmbedResult,
  type LayoutElement,
  type LLMResponse,
  type OcrLayoutPayload,
  type OcrLayoutResult,
  type OcrOptions,
  type OcrTextResult,
  type Operation,
  type ParsedToolCall,
  type StructuredStrategy,
  type ThinkingObservation,
  type ToolCall,
  type ToolCallDelta,
  type ToolChoice,
  type ToolDefinition,
  type Usage,
  type UsageSource,
  type WireToolCall,
} from './types.js';
export {
  type AdmissionGate,
  type Breaker,
  type BreakerChangeReason,
  type BreakerRefusal,
  type BreakerSnapshot,
  type BreakerState,
  type BreakerTicket,
  type BreakerTransition,
  BREAKER_TRANSITIONS,
  type BreakerVerdict,
  type Cache,
  type RecordStore,
  type Clock,
  type Governor,
  type GovernorRefusal,
  type Lease,
  type LimitAdmission,
  LIMIT_GATES,
  type Limiter,
  type LimitGate,
  type MaybePromise,
  type Permit,
  type Sleep,
  type SourceLimits,
  type SourceStats,
  type TelemetryRecorder,
  type TelemetryRecorderStats,
} from './ports.js';
export {
  KEY_AUDIT_ACTIONS,
  KEY_STATES,
  type KeyAuditAction,
  type KeyAuditEntry,
  type KeyChange,
  type KeySecret,
  type KeyState,
  type KeyStore,
  type StoredKey,
} from './key-store.js';
export { governorOf } from './governor-of.js';
export { assertKeyBounds, KEY_BUDGET_WINDOWS, KEY_GATES, type KeyBounds, type KeyBudgetWindow, type KeyGate, type KeyStatus, MAX_KEY_ID_LENGTH } from './keys.js';
export {
  BATCH_GATES,
  type BatchGate,
  type Caller,
  DEFAULT_BATCH_SHARE,
  DEFAULT_CALLER,
  type GateUse,
  type Priority,
  PRIORITIES,
  TENANT_GATES,
  type TenantBounds,
  type TenantGate,
  type TenantOverride,
  type TenantPolicy,
  type TenantShare,
  type TenantUse,
} from './tenants.js';
export {
  type AnyModel,
  type AttemptContext,
  type ChatModel,
  type ChatModelCapabilities,
  type EmbeddingModel,
  MODEL_SPECIFICATION_VERSION,
  type ModelIdentity,
  type OcrModel,
  type Source,
  type StreamAttemptContext,
} from './models.js';
export {
  type BackendSelection,
  type BreakerPolicy,
  type CacheBackendKind,
  type CacheIsolation,
  type CachePolicy,
  type CircuitOpenPolicy,
  type EmbeddingSettings,
  type GatewaySettings,
  type GlobalLimits,
  type LimiterBackendKind,
  type OcrSettings,
  type QuotaFullPolicy,
  type RedisMode,
  type RetryPolicy,
  type SelectorKind,
  type SourceConfig,
  type StructuredPolicy,
  type TelemetryBackendKind,
} from './settings.js';
export {
  TELEMETRY_COLUMNS,
  type TelemetryEventKind,
  type TelemetryRow,
  type TelemetryStatus,
} from './telemetry.js';
export { estimateTokens, type HeaderBag, parseRetryAfter, summarizeBody } from './http-helpers.js';
export { type RedactOptions, redactSecret, redactSecrets } from './redaction.js';
export { type EffortMap, PROVIDER_PROFILES, type ProviderProfile } from './thinking.js';
export { DEFAULT_PRICING, type ModelPrice, parsePricingTable, type PricingTable } from './pricing.js';
export type { RecorderQueueOptions } from './telemetry-queue.js';
export {
  type CallsBucket,
  type LatencyPercentiles,
  MemoryRecorder,
  NoopRecorder,
  type OperationSummary,
  type PromptCacheUse,
  type TenantSummary,
  type WaitPercentiles,
  type SummaryRange,
  type TelemetrySummary,
} from './recorders.js';
export {
  type AttemptContent,
  type AttemptEndEvent,
  type AttemptOutcomeCategory,
  type AttemptStartEvent,
  type BreakerStateEvent,
  type CacheHitEvent,
  type CacheMissEvent,
  type CallEndEvent,
  type CallInfo,
  type CallResultSummary,
  type CallStartEvent,
  type FirstTokenEvent,
  GATEWAY_EVENT_NAMES,
  type GatewayEventName,
  type GatewayEvents,
  type GatewaySubscriber,
  type ModelEndpoint,
  type ModelInfo,
  type QuotaWaitEndEvent,
  type QuotaWaitStartEvent,
  type BudgetRefusedEvent,
  type RetryScheduledEvent,
} from './events.js';
export {
  BUDGET_PERIODS,
  BudgetExceededError,
  type BudgetCharge,
  type BudgetPer,
  type BudgetPeriod,
  type BudgetPolicy,
  type BudgetRefusal,
  type BudgetStatus,
} from './budget.js';
