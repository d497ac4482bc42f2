// Where the behaviours live: a call enters chat-pipeline.ts / embed-pipeline.ts / ocr-pipeline.ts
// (the response cache in cache.ts, structured output in structured.ts, the call deadline in
// deadline-boundary.ts) and runs retry-loop.ts: selector.ts orders the sources, admission.ts asks the
// pacer (pacer.ts) and the governor (breaker, six gates, spend budget; a full gate waits in
// wait-line.ts), attempt.ts runs one attempt and sorts its failure, backoff.ts waits before the next
// (a 429's Retry-After is honoured there), write-backs.ts finishes the lease. A stream is
// chat-stream.ts; the scope's no-progress rule is stall-clock.ts; telemetry rows are
// telemetry-emitter.ts.
// The public surface of @pgw/middleware, curated by hand (scripts/check-exports.mjs checks it against
// exports.txt): the three pipelines the client assembles, what they take and answer, and the shape of
// a user's middleware. The call's ledger (attempt registration, terminal claim, settlement, write-backs),
// the retry loop and its parts stay inside the package, so no caller can corrupt a call's accounting.
export {
  assembleChatPipeline,
  type CallOptions,
  type ChatMiddleware,
  type ChatPipeline,
  type ChatPipelineParts,
  type StreamCallOptions,
} from './pipeline/chat-pipeline.js';
export type { ChatStream } from './pipeline/chat-stream.js';
export {
  assembleEmbedPipeline,
  type EmbeddingCallRequest,
  type EmbeddingMiddleware,
  type EmbeddingResponse,
  type EmbedPipeline,
  type EmbedPipelineParts,
} from './pipeline/embed-pipeline.js';
export { assembleOcrPipeline, type OcrPipeline, type OcrPipelineParts } from './pipeline/ocr-pipeline.js';
export type { PipelineParts, PipelineSettings } from './pipeline/pipeline-base.js';
export type { GatewayChatRequest } from './pipeline/chat-request.js';
export type { ToolSchemas } from './structured/tool-calls.js';
export type { MiddlewareContext, UserMiddleware } from './pipeline/user-middleware.js';
