// Everything an application needs comes from this one package: the clients, settings, and the
// error classes and public types of @pgw/core.
export type * from '@pgw/core';
export {
  PolyGatewayError,
  TransientError,
  SourceDeadError,
  RequestRejectedError,
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
  BUDGET_PERIODS,
  budgetPeriodAt,
  assertBudgetPolicy,
  SCOPE_REASONS,
  EFFORTS,
  PROVIDER_PROFILES,
  MODEL_SPECIFICATION_VERSION,
  DEFAULT_PRICING,
  parsePricingTable,
  NoopRecorder,
  MemoryRecorder,
  TELEMETRY_COLUMNS,
  GATEWAY_EVENT_NAMES,
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
export { MissingPackageError } from './assembly/optional-package.js';
export type { CommonCallOptions, CallerDimensions } from './call-input.js';
export { MAX_ID_LENGTH, MAX_META_JSON_LENGTH } from './call-input.js';
export { gatherBounded } from './gather-bounded.js';
export type { BudgetStatusOptions } from './budget-status.js';

export { SettingsError } from './settings/settings-error.js';
export type { SettingsErrorOptions } from './settings/settings-error.js';
export { parseDotenv, readEnvFile } from './settings/dotenv.js';
export { gatewaySettings, embeddingSettings, ocrSettings } from './settings/construct.js';
export { loadGatewaySettings, loadEmbeddingSettings, loadOcrSettings } from './settings/load-env.js';
export type { LoadSettingsOptions, EnvRecord } from './settings/load-env.js';
export { DEFAULTS as SETTINGS_DEFAULTS } from './settings/schema.js';
export { LEASE_GRACE_MS } from './settings/cross-field-rules.js';
export type { GatewaySettingsInput, EmbeddingSettingsInput, OcrSettingsInput } from './settings/schema.js';
