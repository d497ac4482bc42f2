/** Usage as the upstream measured it, or as estimated from text when it says nothing (docs/architecture.md#transports). */
import { estimateTokens, wireCallParts, type ChatMessage, type Usage } from '@pgw/core';
import { isRecord, tokenCount } from './json.js';

/**
 * A chat `usage` object; undefined when absent (`null` in vLLM's content chunks) or malformed.
 * Prompt-cache hits come as `prompt_tokens_details.cached_tokens` (OpenAI, Qwen, vLLM, OpenRouter),
 * `prompt_cache_hit_tokens` beside `prompt_cache_miss_tokens` (DeepSeek), or a flat `cached_tokens`
 * (Moonshot); all are a part of `prompt_tokens`.
 */
export function measuredChatUsage(wire: unknown): Usage | undefined {
  if (!isRecord(wire)) return undefined;
  const cacheHit = tokenCount(wire['prompt_cache_hit_tokens']);
  const cacheMiss = tokenCount(wire['prompt_cache_miss_tokens']);
  const promptTokens =
    tokenCount(wire['prompt_tokens']) ?? (cacheHit !== undefined && cacheMiss !== undefined ? cacheHit + cacheMiss : undefined);
  const completionTokens = tokenCount(wire['completion_tokens']);
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  // Some servers report reasoning tokens flat on `usage` instead of in the details.
  const reasoningTokens = detail(wire, 'completion_tokens_details', 'reasoning_tokens') ?? tokenCount(wire['reasoning_tokens']);
  const cachedPromptTokens = detail(wire, 'prompt_tokens_details', 'cached_tokens') ?? cacheHit ?? tokenCount(wire['cached_tokens']);
  return {
    promptTokens,
    completionTokens,
    ...(reasoningTokens !== undefined && { reasoningTokens }),
    ...(cachedPromptTokens !== undefined && { cachedPromptTokens }),
    usageSource: 'measured',
  };
}

function detail(wire: Record<string, unknown>, group: string, field: string): number | undefined {
  const details = wire[group];
  return isRecord(details) ? tokenCount(details[field]) : undefined;
}

/** An embeddings `usage` object (`prompt_tokens`, else `total_tokens`); undefined when absent or malformed. */
export function measuredEmbedUsage(wire: unknown): Usage | undefined {
  if (!isRecord(wire)) return undefined;
  const promptTokens = tokenCount(wire['prompt_tokens']) ?? tokenCount(wire['total_tokens']);
  return promptTokens === undefined ? undefined : { promptTokens, completionTokens: 0, usageSource: 'measured' };
}

export function estimatedChatUsage(messages: readonly ChatMessage[], answerText: string): Usage {
  return {
    promptTokens: estimateTokens(messages.map(messageText).join('\n')),
    completionTokens: estimateTokens(answerText),
    usageSource: 'estimated',
  };
}

export function estimatedEmbedUsage(texts: readonly string[]): Usage {
  return { promptTokens: texts.reduce((sum, text) => sum + estimateTokens(text), 0), completionTokens: 0, usageSource: 'estimated' };
}

/** Only text parts (and tool call arguments) are estimated: an image's token cost is the upstream's secret. */
function messageText(message: ChatMessage): string {
  const calls = (message.tool_calls ?? []).map((call) => wireCallParts(call)).map(({ name, input }) => `${name} ${input}`);
  const { content } = message;
  if (content === null) return calls.join('\n');
  if (typeof content === 'string') return [content, ...calls].join('\n');
  return [...content.map((part) => (part.type === 'text' ? part.text : '')), ...calls].join('\n');
}
