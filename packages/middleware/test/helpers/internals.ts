// Every module of the call path the tests reach into, in one place: the package's own index exports
// only the public surface (src/index.ts), so the tests import the parts they exercise from here.

// The onion
export { compose, type Call, type Middleware, type Next } from '../../src/pipeline/compose.js';
export {
  callStats,
  claimTerminal,
  createCallContext,
  registerAttempt,
  withSignal,
  type CallContext,
  type CallContextInit,
  type CallLedger,
} from '../../src/pipeline/context.js';
export type { GatewayChatRequest } from '../../src/pipeline/chat-request.js';
export type { ToolSchemas } from '../../src/structured/tool-calls.js';

// Assembly: what the client calls
export {
  assembleChatPipeline,
  type CallOptions,
  type ChatPipeline,
  type ChatPipelineParts,
  type ChatMiddleware,
  type StreamCallOptions,
} from '../../src/pipeline/chat-pipeline.js';
export { streamCall, type ChatStream, type StreamHooks } from '../../src/pipeline/chat-stream.js';
export {
  assembleEmbedPipeline,
  type EmbeddingResponse,
  type EmbedPipeline,
  type EmbedPipelineParts,
  type EmbeddingCallRequest,
  type EmbeddingMiddleware,
} from '../../src/pipeline/embed-pipeline.js';
export { assembleOcrPipeline, type OcrPipeline, type OcrPipelineParts } from '../../src/pipeline/ocr-pipeline.js';
export { buildPipelineBase, type PipelineBase, type PipelineParts, type PipelineSettings } from '../../src/pipeline/pipeline-base.js';

// Retry loop and its parts
export { DEFAULT_QUOTA_NAP, retryLoop, type Served, type QuotaNap, type RetryLoopDeps } from '../../src/pipeline/retry-loop.js';
export type { AttemptDescription, AttemptOperation, OperationAttempt } from '../../src/pipeline/operation.js';
export { chatOperation } from '../../src/pipeline/chat-operation.js';
export { embedOperation } from '../../src/pipeline/embed-operation.js';
export { ocrLayoutOperation, ocrTextOperation, type OcrRequest } from '../../src/pipeline/ocr-operation.js';
export { backoffDelayMs } from '../../src/pipeline/backoff.js';
export { Pacer } from '../../src/admission/pacer.js';
export { HealthBook } from '../../src/admission/health.js';
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
} from '../../src/admission/selector.js';
export { ScopeProgress, StallClock } from '../../src/pipeline/stall-clock.js';
export { WaitLine, type Waiter } from '../../src/admission/wait-line.js';
export { Settlement, type SettlementBranch, type TokenAccounting } from '../../src/pipeline/settlement.js';
export { callDeadlineBoundary } from '../../src/pipeline/deadline-boundary.js';

// Cache, structured output, telemetry
export { cacheMiddleware, type CacheMiddlewareOptions } from '../../src/cache/cache.js';
export { chatCacheKey, messagesDigest, type CacheKeyScope } from '../../src/cache/cache-key.js';
export { canonicalJson } from '../../src/cache/canonical-json.js';
export { structuredMiddleware, type StructuredMiddlewareOptions } from '../../src/structured/structured.js';
export { extractJsonText, parseStructuredAnswer, type StructuredParse } from '../../src/structured/json-extract.js';
export { askForJson, inPromptJsonRequest } from '../../src/structured/json-prompt.js';
export { TelemetryEmitter, type TelemetryEmitterOptions } from '../../src/telemetry/telemetry-emitter.js';

// Events and the user's layers
export { EventHub, assertSubscribers } from '../../src/telemetry/event-hub.js';
export { callEventsMiddleware } from '../../src/telemetry/call-events.js';
export { userLayers, type MiddlewareContext, type UserMiddleware } from '../../src/pipeline/user-middleware.js';
export { SafeRecorder } from '../../src/telemetry/safe-recorder.js';
export { WarnOnce } from '../../src/warn-once.js';
export { WriteBacks } from '../../src/admission/write-backs.js';
export { timeOrderedId } from '../../src/time-ordered-id.js';

// The synchronous fast path's one combinator
export { andThen, tryThen, wentAsync } from '../../src/maybe-async.js';
