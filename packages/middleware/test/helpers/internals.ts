// Every module of the call path the tests reach into, in one place: the package's own index exports
// only the public surface (src/index.ts), so the tests import the parts they exercise from here.

// The onion
export { compose, type Call, type Middleware, type Next } from '../../src/compose.js';
export {
  callStats,
  claimTerminal,
  createCallContext,
  registerAttempt,
  withSignal,
  type CallContext,
  type CallContextInit,
  type CallLedger,
} from '../../src/context.js';
export type { GatewayChatRequest } from '../../src/chat-request.js';
export type { ToolSchemas } from '../../src/tool-calls.js';

// Assembly: what the client calls
export {
  assembleChatPipeline,
  type CallOptions,
  type ChatPipeline,
  type ChatPipelineParts,
  type ChatMiddleware,
  type StreamCallOptions,
} from '../../src/chat-pipeline.js';
export { streamCall, type ChatStream, type StreamHooks } from '../../src/chat-stream.js';
export {
  assembleEmbedPipeline,
  type EmbeddingResponse,
  type EmbedPipeline,
  type EmbedPipelineParts,
  type EmbeddingCallRequest,
  type EmbeddingMiddleware,
} from '../../src/embed-pipeline.js';
export { assembleOcrPipeline, type OcrPipeline, type OcrPipelineParts } from '../../src/ocr-pipeline.js';
export { buildPipelineBase, type PipelineBase, type PipelineParts, type PipelineSettings } from '../../src/pipeline-base.js';

// Retry loop and its parts
export { DEFAULT_QUOTA_NAP, retryLoop, type Served, type QuotaNap, type RetryLoopDeps } from '../../src/retry-loop.js';
export type { AttemptDescription, AttemptOperation, OperationAttempt } from '../../src/operation.js';
export { chatOperation } from '../../src/chat-operation.js';
export { embedOperation } from '../../src/embed-operation.js';
export { ocrLayoutOperation, ocrTextOperation, type OcrRequest } from '../../src/ocr-operation.js';
export { backoffDelayMs } from '../../src/backoff.js';
export { Pacer } from '../../src/pacer.js';
export { HealthBook } from '../../src/health.js';
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
} from '../../src/selector.js';
export { ScopeProgress, StallClock } from '../../src/stall-clock.js';
export { WaitLine, type Waiter } from '../../src/wait-line.js';
export { Settlement, type SettlementBranch, type TokenAccounting } from '../../src/settlement.js';
export { callDeadlineBoundary } from '../../src/deadline-boundary.js';

// Cache, structured output, telemetry
export { cacheMiddleware, type CacheMiddlewareOptions } from '../../src/cache.js';
export { chatCacheKey, messagesDigest, type CacheKeyScope } from '../../src/cache-key.js';
export { canonicalJson } from '../../src/canonical-json.js';
export { structuredMiddleware, type StructuredMiddlewareOptions } from '../../src/structured.js';
export { extractJsonText, parseStructuredAnswer, type StructuredParse } from '../../src/json-extract.js';
export { askForJson, inPromptJsonRequest } from '../../src/json-prompt.js';
export { TelemetryEmitter, type TelemetryEmitterOptions } from '../../src/telemetry-emitter.js';

// Events and the user's layers
export { EventHub, assertSubscribers } from '../../src/event-hub.js';
export { callEventsMiddleware } from '../../src/call-events.js';
export { userLayers, type MiddlewareContext, type UserMiddleware } from '../../src/user-middleware.js';
export { SafeRecorder } from '../../src/safe-recorder.js';
export { WarnOnce } from '../../src/warn-once.js';
export { WriteBacks } from '../../src/write-backs.js';
export { timeOrderedId } from '../../src/time-ordered-id.js';

// The synchronous fast path's one combinator
export { andThen, tryThen, wentAsync } from '../../src/maybe-async.js';
