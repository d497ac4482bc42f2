import type { Cache, CachePolicy, CallStats, Clock, LLMResponse, ToolCall } from '@pgw/core';
import { raceAbort } from '../abort.js';
import { chatCacheKey } from './cache-key.js';
import type { GatewayChatRequest } from '../pipeline/chat-request.js';
import type { Middleware } from '../pipeline/compose.js';
import { callStats } from '../pipeline/context.js';
import { judge } from '../structured/structured.js';
import { leniently } from '../structured/tool-calls.js';
import type { EventHub } from '../telemetry/event-hub.js';
import { describeError, type WarnOnce } from '../warn-once.js';

export interface CacheMiddlewareOptions {
  cache: Cache;
  policy: CachePolicy;
  /** The scope's model identity in the key (its sources' models). */
  model: string;
  events: EventHub;
  warnings: WarnOnce;
  now: Clock;
}

/** What is stored: the answer, not the call that produced it (no stats, no cost). */
type StoredAnswer = Pick<LLMResponse, 'content' | 'reasoningContent' | 'source' | 'model' | 'usage' | 'thinkingObservation' | 'finishReason'> & {
  /** Raw calls: their inputs are re-derived on a hit. */
  toolCalls?: ToolCall[];
};

/**
 * Chat cache (docs/architecture.md#cache). Only complete successes are stored — anything that reached here as a response
 * is complete (a truncated stream is a TransientError). Cache errors fail open: one warning per kind
 * (`get`, `set`, `decode`) and the call proceeds. `ctx.cacheBypass` skips read and write.
 */
export function cacheMiddleware(options: CacheMiddlewareOptions): Middleware<GatewayChatRequest, LLMResponse> {
  const { cache, policy, warnings, events } = options;
  const degrade = (kind: string, error: unknown): void =>
    warnings.warnOnce(`cache.${kind}`, `cache ${kind} failed, the call proceeds without it: ${describeError(error)}`);

  return async (call, next) => {
    const { request, ctx } = call;
    if (ctx.cacheBypass) return next(call);
    const key = chatCacheKey(request, {
      model: options.model,
      namespace: policy.namespace,
      salt: policy.salt,
      isolation: policy.isolation,
      tenantId: ctx.tenantId,
    });

    let stored: string | undefined;
    try {
      stored = await raceAbort(cache.get(key), ctx.signal);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      degrade('get', error);
    }
    if (stored !== undefined) {
      const answer = decodeHit(stored, degrade);
      const hit = answer && judge(cachedResponse(answer, callStats(ctx, options.now)), request.structured, request, request.toolSchemas);
      // The parsed value and tool inputs are re-derived from the stored text, so schema transforms apply
      // exactly as on a fresh call; an entry that no longer validates is a miss.
      if (hit?.ok) {
        if (events.on.onCacheHit) {
          const { source, model, content, thinkingObservation, toolCalls } = hit.response;
          events.emit('onCacheHit', { call: ctx, source, model, content, thinkingObservation, ...(toolCalls?.length && { toolCalls: toolCalls.length }) });
        }
        return hit.response;
      }
    }
    if (events.on.onCacheMiss) events.emit('onCacheMiss', { call: ctx });

    const response = await next(call);
    try {
      await raceAbort(cache.set(key, JSON.stringify(storedAnswer(response)), policy.ttlMs), ctx.signal);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      degrade('set', error);
    }
    return response;
  };
}

function storedAnswer(response: LLMResponse): StoredAnswer {
  const { content, reasoningContent, source, model, usage, thinkingObservation, finishReason, toolCalls } = response;
  return {
    content,
    reasoningContent,
    source,
    model,
    usage,
    thinkingObservation,
    finishReason,
    ...(toolCalls !== undefined && { toolCalls: toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) }),
  };
}

function cachedResponse(answer: StoredAnswer, stats: CallStats): LLMResponse {
  const { toolCalls, ...rest } = answer;
  return {
    ...rest,
    cached: true,
    costUsd: 0,
    callStats: stats,
    ...(toolCalls !== undefined && { toolCalls: leniently(toolCalls) }),
  };
}

/** A stored entry that no longer decodes is a miss, never a failed call. */
function decodeHit(stored: string, degrade: (kind: string, error: unknown) => void): StoredAnswer | undefined {
  try {
    const answer = JSON.parse(stored) as StoredAnswer;
    if (typeof answer.content !== 'string' || typeof answer.source !== 'string' || typeof answer.usage !== 'object') {
      throw new TypeError('stored entry has no answer shape');
    }
    return answer;
  } catch (error) {
    degrade('decode', error);
    return undefined;
  }
}
