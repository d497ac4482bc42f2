/**
 * A governed answer (`LLMResponse`) in the AI SDK's terms: content parts, the finish reason
 * `{ unified, raw }`, the token usage with its cache and reasoning details, and
 * `providerMetadata.pgw` (source, cost, call id, call stats).
 */
import type { LanguageModelV3Content, LanguageModelV3FinishReason, LanguageModelV3Usage, SharedV3ProviderMetadata } from '@ai-sdk/provider';
import type { LLMResponse, Usage } from '@pgw/client';
import { FINISH_REASONS } from './wire-names.js';

export function resultContent(response: LLMResponse): LanguageModelV3Content[] {
  const content: LanguageModelV3Content[] = [];
  if (response.reasoningContent) content.push({ type: 'reasoning', text: response.reasoningContent });
  const text = response.parsed !== undefined ? JSON.stringify(response.parsed) : response.content;
  if (text !== '') content.push({ type: 'text', text });
  for (const call of response.toolCalls ?? []) content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
  return content;
}

export function finishReason(response: LLMResponse): LanguageModelV3FinishReason {
  const raw = response.finishReason;
  if (raw === undefined) return { unified: response.toolCalls?.length ? 'tool-calls' : 'stop', raw };
  return { unified: FINISH_REASONS.aiSdkName(raw) ?? 'other', raw };
}

/** Unknown stays undefined (`unavailable` usage is not zero); the parts are split out of their wholes. */
export function resultUsage(usage: Usage): LanguageModelV3Usage {
  if (usage.usageSource === 'unavailable') {
    return { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } };
  }
  const cacheRead = usage.cachedPromptTokens;
  const cacheWrite = usage.cacheWritePromptTokens;
  const reasoning = usage.reasoningTokens;
  return {
    inputTokens: { total: usage.promptTokens, noCache: usage.promptTokens - (cacheRead ?? 0) - (cacheWrite ?? 0), cacheRead, cacheWrite },
    outputTokens: { total: usage.completionTokens, text: usage.completionTokens - (reasoning ?? 0), reasoning },
    raw: { usageSource: usage.usageSource },
  };
}

/** `callId` is the id of the governed (logical) call: every telemetry row of it carries it as `logical_call_id`. */
export function pgwMetadata(response: Pick<LLMResponse, 'source' | 'costUsd' | 'callStats' | 'cached'>): SharedV3ProviderMetadata {
  const { source, costUsd, callStats, cached } = response;
  return {
    pgw: {
      source,
      costUsd: costUsd ?? null,
      callId: callStats.logicalCallId,
      cached,
      callStats: { logicalCallId: callStats.logicalCallId, attempts: callStats.attempts, totalLatencyMs: callStats.totalLatencyMs, sourcesTried: [...callStats.sourcesTried] },
    },
  };
}
