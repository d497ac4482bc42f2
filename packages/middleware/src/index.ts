// The onion
export { compose, type Call, type Middleware, type Next } from './compose.js';
export {
  callStats,
  claimTerminal,
  createCallContext,
  registerAttempt,
  withSignal,
  type CallContext,
  type CallContextInit,
  type CallLedger,
} from './context.js';
export type { GatewayChatRequest } from './chat-request.js';
export type { ToolSchemas } from './tool-calls.js';
export { toWireCall } from './tool-calls.js';

// Assembly: what the client calls
export {
  assembleChatPipeline,
  type CallOptions,
  type ChatPipeline,
  type ChatPipelineParts,
  type ChatMiddleware,
  type StreamCallOptions,
} from './chat-pipeline.js';
export { streamCall, type ChatStream, type StreamHooks } from './chat-stream.js';
export {
  assembleEmbedPipeline,
  type EmbeddingResponse,
  type EmbedPipeline,
  type EmbedPipelineParts,
  type EmbeddingCallRequest,
  type EmbeddingMiddleware,
} from './embed-pipeline.js';
export { assembleOcrPipeline, type OcrPipeline, type OcrPipelineParts } from './ocr-pipeline.js';
export { buildPipelineBase, type PipelineBase, type PipelineParts, type PipelineSettings } from './pipeline-base.js';

// Retry loop and its parts
export { DEFAULT_QUOTA_NAP, retryLoop, type Served, type QuotaNap, type RetryLoopDeps } from './retry-loop.js';
export type { AttemptDescription, AttemptOperation, OperationAttempt } from './operation.js';
export { chatOperation } from './chat-operation.js';
export { embedOperation } from './embed-operation.js';
export { ocrLayoutOperation, ocrTextOperation, type OcrRequest } from './ocr-operation.js';
export { backoffDelayMs } from './backoff.js';
export { Pacer } from './pacer.js';
export { HealthBook } from './health.js';
export {
  createSelector,
  DEFAULT_STATS_EVERY_MS,
  deprioritiseFailed,
  headroom,
  healthScore,
  largerWindows,
  type Selector,
  type SelectorEntry,
  type SelectorDeps,
  type SourceWalk,
} from './selector.js';
export { ScopeProgress, StallClock } from './stall-clock.js';
export { WaitLine, type Waiter } from './wait-line.js';
export { Settlement, type SettlementBranch, type TokenAccounting } from './settlement.js';
export { callDeadlineBoundary } from './deadline-boundary.js';

// Cache, structured output, telemetry
export { cacheMiddleware, type CacheMiddlewareOptions } from './cache.js';
export { chatCacheKey, messagesDigest, type CacheKeyScope } from './cache-key.js';
export { canonicalJson } from './canonical-json.js';
export { structuredMiddleware, type StructuredMiddlewareOptions } from './structured.js';
export { extractJsonText, parseStructuredAnswer, type StructuredParse } from './json-extract.js';
export { askForJson, inPromptJsonRequest } from './json-prompt.js';
export { TelemetryEmitter, type TelemetryEmitterOptions } from './telemetry-emitter.js';

// Events and the user's layers
export { EventHub, assertSubscribers } from './event-hub.js';
export { callEventsMiddleware } from './call-events.js';
export { userLayers, type MiddlewareContext, type UserMiddleware } from './user-middleware.js';
export { SafeRecorder } from './safe-recorder.js';
export { WarnOnce } from './warn-once.js';
export { WriteBacks } from './write-backs.js';
export { timeOrderedId } from './time-ordered-id.js';
