/**
 * The token usage an AI SDK model reports, in the library's terms: V3/V4 nest the prompt's cache
 * reads and writes and the completion's reasoning; V2 is flat. Nothing reported → an estimate
 * from the texts (`usageSource: 'estimated'`), as the providers of this library do.
 */
import type { LanguageModelV2Usage, LanguageModelV3Usage } from '@ai-sdk/provider';
import { estimateTokens, type ChatMessage, type Usage } from '@pgw/core';

export function modelUsage(reported: LanguageModelV2Usage | LanguageModelV3Usage | undefined, messages: readonly ChatMessage[], answer: string): Usage {
  const counts = reported === undefined ? undefined : 'total' in Object(reported.inputTokens) ? nested(reported as LanguageModelV3Usage) : flat(reported as LanguageModelV2Usage);
  if (counts?.promptTokens !== undefined && counts.completionTokens !== undefined) {
    return { ...withoutUndefined(counts), promptTokens: counts.promptTokens, completionTokens: counts.completionTokens, usageSource: 'measured' };
  }
  const prompt = messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))).join('\n');
  return { promptTokens: estimateTokens(prompt), completionTokens: estimateTokens(answer), usageSource: 'estimated' };
}

type Counts = Partial<Omit<Usage, 'usageSource'>>;

function nested(usage: LanguageModelV3Usage): Counts {
  return {
    promptTokens: usage.inputTokens.total,
    completionTokens: usage.outputTokens.total,
    cachedPromptTokens: usage.inputTokens.cacheRead,
    cacheWritePromptTokens: usage.inputTokens.cacheWrite,
    reasoningTokens: usage.outputTokens.reasoning,
  };
}

function flat(usage: LanguageModelV2Usage): Counts {
  return { promptTokens: usage.inputTokens, completionTokens: usage.outputTokens, cachedPromptTokens: usage.cachedInputTokens, reasoningTokens: usage.reasoningTokens };
}

function withoutUndefined(counts: Counts): Counts {
  return Object.fromEntries(Object.entries(counts).filter(([, value]) => typeof value === 'number')) as Counts;
}
