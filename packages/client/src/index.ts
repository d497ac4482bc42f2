// Where the behaviours live: gateway-client.ts, embedding-client.ts and ocr-client.ts are the
// clients, sharing client-parts.ts (their seams) and client-lifecycle.ts (they close what they made);
// call-input.ts checks what a caller passes (tool-options.ts a chat's tools; deep-freeze.ts freezes
// what is kept), tool-loop.ts runs tools; source-status.ts, tenant-status.ts, budget-status.ts and
// key-status.ts read the governor's books; gather-bounded.ts runs a caller's calls at a bounded concurrency. settings/
// reads and checks `.env` keys (settings/schema.ts, settings/env-keys.ts,
// settings/cross-field-rules.ts); assembly/ builds the backends, the telemetry and the models those
// settings name, loading optional packages on demand. The governance itself runs in @pgw/middleware
// over the backends' Governor.
// What an application calling the clients needs, from this one package: the clients, their options
// and answers, their settings, the errors it catches, the events it subscribes to and the status
// snapshots it reads. Everything else comes from @pgw/core: the parts inside those types (a
// settings' policies, an event's call info, literal unions such as `Effort`), core's constants and
// helpers, and what an adapter, a provider or a model author implements (ports, model spec,
// recorders, the errors' constructor options, the errors the retry loop absorbs). Curated by hand:
// exports.txt lists each name with who needs it (scripts/check-exports.mjs checks both).
export type {
  ChatMessage,
  ContentPart,
  WireToolCall,
  ToolCall,
  ParsedToolCall,
  ToolCallDelta,
  ChatDelta,
  LLMResponse,
  Usage,
  CallStats,
  OcrTextResult,
  OcrLayoutResult,
  LayoutElement,
  GatewaySettings,
  EmbeddingSettings,
  OcrSettings,
  BudgetStatus,
  KeyBounds,
  KeyStatus,
  GatewayEvents,
  GatewayEventName,
  GatewaySubscriber,
  CallStartEvent,
  CallEndEvent,
  AttemptStartEvent,
  AttemptEndEvent,
  RetryScheduledEvent,
  BreakerStateEvent,
  QuotaWaitStartEvent,
  QuotaWaitEndEvent,
  CacheHitEvent,
  CacheMissEvent,
  FirstTokenEvent,
  BudgetRefusedEvent,
} from '@pgw/core';
export {
  PolyGatewayError,
  RequestRejectedError,
  RequestTooLargeError,
  ContextLengthExceededError,
  ResultInvalidError,
  GatewayUnavailableError,
  AllSourcesExhausted,
  StreamInterruptedError,
  CircuitOpenError,
  GovernanceBackendError,
  SourceNotConfiguredError,
  CallDeadlineExceeded,
  ToolExecutionError,
  BudgetExceededError,
  GATEWAY_EVENT_NAMES,
  toWireCall,
} from '@pgw/core';

export { GatewayClient } from './gateway-client.js';
export type { ChatOptions, ChatStreamOptions, RunToolsOptions, GatewayParts, GatewayClientOverrides } from './gateway-client.js';
export type { ChatTool, ToolOptions } from './tool-options.js';
export type { RunnableTool, ToolExecutionContext, ToolResult, ToolStep, ToolRunResult } from './tool-loop.js';
export type {
  ChatStream,
  EmbeddingResponse,
  ChatMiddleware,
  EmbeddingMiddleware,
  EmbeddingCallRequest,
  MiddlewareContext,
  UserMiddleware,
} from '@pgw/middleware';
export { EmbeddingClient } from './embedding-client.js';
export type { EmbedOptions, EmbeddingParts, EmbeddingClientOverrides } from './embedding-client.js';
export { OcrClient } from './ocr-client.js';
export type { OcrCallOptions, OcrParts, OcrClientOverrides } from './ocr-client.js';
export type { AssemblyOverrides } from './assembly/components.js';
export { openRecordStore, type RecordStoreOptions } from './assembly/record-store.js';
export { openGovernance, type Governance, type GovernanceOptions } from './assembly/governance.js';
export { MissingPackageError, loadOptional } from './assembly/optional-package.js';
export type { CommonCallOptions, CallerDimensions } from './call-input.js';
export { MAX_ID_LENGTH, MAX_META_JSON_LENGTH } from './call-input.js';
export { gatherBounded } from './gather-bounded.js';
export type { BudgetStatusOptions } from './budget-status.js';
export type { TenantStatus } from './tenant-status.js';
export type { SourceStatus } from './source-status.js';

export { SettingsError } from './settings/settings-error.js';
export type { SettingsErrorOptions } from './settings/settings-error.js';
export { parseDotenv, readEnvFile } from './settings/dotenv.js';
export { gatewaySettings, embeddingSettings, ocrSettings } from './settings/construct.js';
export { loadGatewaySettings, loadEmbeddingSettings, loadOcrSettings } from './settings/load-env.js';
export type { LoadSettingsOptions, EnvRecord } from './settings/load-env.js';
export { settingsFromEnv } from './settings/env-settings.js';
export type { EnvKey, ValueParse } from './settings/env-settings.js';
export { DEFAULTS as SETTINGS_DEFAULTS } from './settings/schema.js';
export { LEASE_GRACE_MS } from './settings/cross-field-rules.js';
export type { GatewaySettingsInput, EmbeddingSettingsInput, OcrSettingsInput } from './settings/schema.js';
