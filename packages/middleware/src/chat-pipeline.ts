import { costUsd, ThinkingContradictions, type Cache, type ChatModel, type GatewaySettings, type LLMResponse } from '@pgw/core';
import { cacheMiddleware } from './cache.js';
import type { GatewayChatRequest } from './chat-request.js';
import { chatOperation } from './chat-operation.js';
import { streamCall, type ChatStream } from './chat-stream.js';
import { compose, type Middleware } from './compose.js';
import { callStats, createCallContext, type CallContextInit } from './context.js';
import { callDeadlineBoundary } from './deadline-boundary.js';
import { buildGovernance, type GovernanceParts, type GovernanceSettings } from './governance.js';
import { underOwnSignal } from './own-signal.js';
import { retryLoop } from './retry-loop.js';
import { structuredMiddleware } from './structured.js';
import { telemetryMiddleware } from './telemetry-emitter.js';
import { leniently } from './tool-calls.js';

/** Per-call options of a pipeline run (the scope, operation and clock come from the pipeline). */
export type CallOptions = Omit<CallContextInit, 'scope' | 'operation' | 'now'>;

/** Options of a streamed run: the stream itself is the delta sink. */
export type StreamCallOptions = Omit<CallOptions, 'onDelta'>;

export interface ChatPipelineParts extends GovernanceParts<ChatModel> {
  settings: GovernanceSettings<ChatModel> & Pick<GatewaySettings, 'cache' | 'structured'>;
  /** Omit for no cache layer. */
  cache?: Cache;
}

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
}

/**
 * The chat onion, outer → inner: telemetry emitter → call deadline → cache → structured → retry loop → transport.
 */
export function assembleChatPipeline(parts: ChatPipelineParts): ChatPipeline {
  const { settings, now, pricing } = parts;
  const { retryDeps, emitter, warnings } = buildGovernance(parts, ['generate']);
  const retry = retryLoop(retryDeps, chatOperation(new ThinkingContradictions(parts.warn)));
  const models = [...new Set(settings.sources.map((source) => source.model.modelId))].sort().join(',');
  const layers: Array<Middleware<GatewayChatRequest, LLMResponse>> = [
    telemetryMiddleware(emitter, now, (response, stats) => ({ ...response, callStats: stats })),
    callDeadlineBoundary(),
    ...(parts.cache ? [cacheMiddleware({ cache: parts.cache, policy: settings.cache, model: models, emitter, warnings, now })] : []),
    structuredMiddleware({ policy: settings.structured }),
  ];
  const onion = compose(layers, async (call) => {
    const { result, source } = await retry(call);
    return {
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
    };
  });
  const start = (request: GatewayChatRequest, options: CallOptions, signal: AbortSignal | undefined): Promise<LLMResponse> =>
    onion({ request, ctx: createCallContext({ ...options, signal, scope: settings.scope, operation: 'chat', now }) });
  return {
    run: (request, options = {}) => underOwnSignal(options.signal, (signal) => start(request, options, signal)),
    stream: (request, options = {}) => {
      if (request.structured !== undefined) {
        throw new TypeError('stream(request.structured) is not supported: a structured re-ask cannot take back streamed tokens; use run()');
      }
      // The stream's signal is already the call's own (one listener on the caller's): no second one.
      return streamCall(({ signal, onDelta }) => start(request, { ...options, onDelta }, signal), options.signal);
    },
    get droppedTelemetryRows() {
      return emitter.droppedRows;
    },
  };
}
