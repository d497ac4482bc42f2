// Where the behaviours live, each file by name (no folder is named whole, so a new file must join this
// guide). The governed call: pipeline/chat-pipeline.ts,
// pipeline/embed-pipeline.ts and pipeline/ocr-pipeline.ts build its onion with pipeline/compose.ts from
// the parts of pipeline/pipeline-base.ts (the call's context in pipeline/context.ts, its own signal in
// pipeline/own-signal.ts, the call deadline in pipeline/deadline-boundary.ts, a user's layers in
// pipeline/user-middleware.ts; a chat request is pipeline/chat-request.ts, a stream
// pipeline/chat-stream.ts), and end in pipeline/retry-loop.ts: pipeline/attempt.ts runs one attempt
// (its deltas through pipeline/attempt-deltas.ts; its operation, pipeline/operation.ts with
// pipeline/chat-operation.ts, pipeline/embed-operation.ts and pipeline/ocr-operation.ts, says how it
// is invoked and charged) and sorts its failure, pipeline/settlement.ts settles its permit's charge and
// pipeline/budget-pricing.ts prices its reservation and cost, pipeline/backoff.ts waits before the
// next (a 429's Retry-After is honoured there), pipeline/stall-clock.ts is the scope's no-progress
// rule. What lets an attempt in: admission/selector.ts orders the sources (by their health in
// admission/health.ts), admission/admission.ts asks the pacer (admission/pacer.ts) and the governor
// (breaker, six gates, spend budget; a full gate waits in admission/wait-line.ts),
// admission/write-backs.ts finishes the lease, admission/breaker-events.ts reports the breaker's
// transitions. The response cache: cache/cache.ts, keyed by cache/cache-key.ts over
// cache/canonical-json.ts. Structured output: structured/structured.ts judges an
// answer and re-asks, structured/json-extract.ts finds its JSON, structured/json-prompt.ts asks for
// JSON in the prompt, structured/strict-json-schema.ts shapes the schema for strict mode,
// structured/tool-calls.ts parses tool-call arguments. What a call reports:
// telemetry/call-events.ts its start and end, telemetry/event-hub.ts fans events out to subscribers,
// telemetry/telemetry-emitter.ts writes the rows through telemetry/safe-recorder.ts. Shared by all:
// abort.ts races a signal, maybe-async.ts is the ports' synchronous fast path, time-ordered-id.ts makes
// the ids, warn-once.ts says a repeated failure once.
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
