import type { Cache, CachePolicy, Clock, LLMResponse } from '@pgw/core';
import { raceAbort } from './abort.js';
import { chatCacheKey } from './cache-key.js';
import type { GatewayChatRequest } from './chat-request.js';
import type { Middleware } from './compose.js';
import { callStats } from './context.js';
import { parseStructuredAnswer } from './json-extract.js';
import type { EventHub } from './event-hub.js';
import { describeError, type WarnOnce } from './warn-once.js';

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
type StoredAnswer = Pick<LLMResponse, 'content' | 'reasoningContent' | 'source' | 'model' | 'usage' | 'thinkingObservation'>;

/**
 * Chat cache (SPEC §7). Only complete successes are stored — anything that reached here as a response
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
    const key = chatCacheKey(request, { model: options.model, namespace: policy.namespace, salt: policy.salt });

    let stored: string | undefined;
    try {
      stored = await raceAbort(cache.get(key), ctx.signal);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      degrade('get', error);
    }
    if (stored !== undefined) {
      const hit = decodeHit(stored, request, degrade);
      if (hit) {
        const response: LLMResponse = { ...hit, cached: true, costUsd: 0, callStats: callStats(ctx, options.now) };
        if (events.on.onCacheHit) {
          const { source, model, content, thinkingObservation } = response;
          events.emit('onCacheHit', { call: ctx, source, model, content, thinkingObservation });
        }
        return response;
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
  const { content, reasoningContent, source, model, usage, thinkingObservation } = response;
  return { content, reasoningContent, source, model, usage, thinkingObservation };
}

/** A stored entry that no longer decodes or validates is a miss, never a failed call. */
function decodeHit(
  stored: string,
  request: GatewayChatRequest,
  degrade: (kind: string, error: unknown) => void,
): (StoredAnswer & { parsed?: unknown }) | undefined {
  let answer: StoredAnswer;
  try {
    answer = JSON.parse(stored) as StoredAnswer;
    if (typeof answer.content !== 'string' || typeof answer.source !== 'string' || typeof answer.usage !== 'object') {
      throw new TypeError('stored entry has no answer shape');
    }
  } catch (error) {
    degrade('decode', error);
    return undefined;
  }
  if (!request.structured) return answer;
  // The parsed value is re-derived from the stored text, so schema transforms apply exactly as on a fresh call.
  const parsed = parseStructuredAnswer(answer.content, request.structured);
  return parsed.ok ? { ...answer, parsed: parsed.value } : undefined;
}
