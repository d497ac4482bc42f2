import type { Cache, CallResultSummary, ChatModel, GatewaySettings, LLMResponse } from '@pgw/core';
import { costUsd, ThinkingContradictions } from '@pgw/core/internal';
import { cacheMiddleware } from '../cache/cache.js';
import type { GatewayChatRequest } from './chat-request.js';
import { chatOperation } from './chat-operation.js';
import { streamCall, type ChatStream } from './chat-stream.js';
import { compose, type Middleware } from './compose.js';
import { callStats, createCallContext, type CallContextInit } from './context.js';
import { callDeadlineBoundary } from './deadline-boundary.js';
import { callEventsMiddleware } from '../telemetry/call-events.js';
import { buildPipelineBase, type PipelineParts, type PipelineSettings } from './pipeline-base.js';
import { underOwnSignal } from './own-signal.js';
import { retryLoop } from './retry-loop.js';
import { structuredMiddleware } from '../structured/structured.js';
import { leniently } from '../structured/tool-calls.js';
import { userLayers, type UserMiddleware } from './user-middleware.js';

/** Per-call options of a pipeline run (the scope, operation and clock come from the pipeline). */
export type CallOptions = Omit<CallContextInit, 'scope' | 'operation' | 'now'>;

/** Options of a streamed run: the stream itself is the delta sink. */
export type StreamCallOptions = Omit<CallOptions, 'onDelta'>;

export interface ChatPipelineParts extends PipelineParts<ChatModel> {
  settings: PipelineSettings<ChatModel> & Pick<GatewaySettings, 'cache' | 'structured'>;
  /** Omit for no cache layer. */
  cache?: Cache;
  /** The user's layers, inside the call deadline and outside the cache (`[0]` outermost). */
  middleware?: readonly ChatMiddleware[];
}

export type ChatMiddleware = UserMiddleware<GatewayChatRequest, LLMResponse>;

export interface ChatPipeline {
  run(request: GatewayChatRequest, options?: CallOptions): Promise<LLMResponse>;
  /**
   * The same governed call, its content streamed to the caller as it arrives (see README "Streaming").
   * A source whose model does not stream yields its whole answer as one delta. Throws a TypeError at once for
   * `request.structured`: a re-asked answer cannot take back tokens already shown (for the same reason an
   * invalid tool call of a stream is not re-asked).
   */
  stream(request: GatewayChatRequest, options?: StreamCallOptions): ChatStream;
  /** Telemetry rows a failing recorder refused. */
  readonly droppedTelemetryRows: number;
  /** How many of `tenantId`'s calls wait for room in this process now. */
  waiting(tenantId: string): number;
}

/**
 * The chat onion, outer → inner: call events (start/end; the terminal row) → call deadline → user
 * middleware → cache → structured → retry loop → model.
 */
export function assembleChatPipeline(parts: ChatPipelineParts): ChatPipeline {
  const { settings, now, pricing } = parts;
  const { retryDeps, emitter, events, warnings, models } = buildPipelineBase(parts, ['generate']);
  const retry = retryLoop(retryDeps, chatOperation(new ThinkingContradictions(parts.warn)));
  const layers: Array<Middleware<GatewayChatRequest, LLMResponse>> = [
    callEventsMiddleware({ events, now, models, summarize: summarizeChat, finalize: (response, stats) => ({ ...response, callStats: stats }) }),
    callDeadlineBoundary(),
    ...userLayers<GatewayChatRequest, LLMResponse>(parts.middleware, 'middleware'),
    ...(parts.cache ? [cacheMiddleware({ cache: parts.cache, policy: settings.cache, model: models.join(','), events, warnings, now })] : []),
    structuredMiddleware({ policy: settings.structured }),
  ];
  const onion = compose(layers, (call) => retry(call).then(({ result, source }) => ({
      content: result.content,
      reasoningContent: result.reasoningContent,
      source: source.name,
      model: result.model,
      cached: false,
      usage: result.usage,
      thinkingObservation: result.thinkingObservation,
      callStats: callStats(call.ctx, now),
      costUsd: costUsd(result.usage, result.model, pricing, source.price),
      ...(result.toolCalls !== undefined && { toolCalls: leniently(result.toolCalls) }),
      ...(result.finishReason !== undefined && { finishReason: result.finishReason }),
    })),
  );
  const start = (request: GatewayChatRequest, options: CallOptions, signal: AbortSignal | undefined): Promise<LLMResponse> =>
    onion({ request, ctx: createCallContext({ signal, scope: settings.scope, operation: 'chat', now }, options) });
  return {
    run: (request, options = {}) =>
      // Without a caller signal there is nothing to follow.
      options.signal === undefined ? start(request, options, undefined) : underOwnSignal(options.signal, (signal) => start(request, options, signal)),
    stream: (request, options = {}) => {
      if (request.structured !== undefined) {
        throw new TypeError('stream(request.structured) is not supported: a structured re-ask cannot take back streamed tokens; use run()');
      }
      // The stream's signal is already the call's own (one listener on the caller's): no second one.
      return streamCall(({ signal, onDelta }) => start(request, { ...options, onDelta }, signal), options.signal);
    },
    waiting: (tenantId) => retryDeps.line.waiting(tenantId),
    get droppedTelemetryRows() {
      return emitter.droppedRows;
    },
  };
}

function summarizeChat(response: LLMResponse): CallResultSummary {
  const { source, model, usage, costUsd, cached } = response;
  return { source, model, usage, costUsd, cached };
}
