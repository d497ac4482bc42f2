/** Usage as the upstream measured it, or as estimated from text when it says nothing (SPEC §11). */
import { estimateTokens, type ChatMessage, type Usage } from '@pgw/core';
import { isRecord, tokenCount } from './json.js';

/** A chat `usage` object; undefined when absent (`null` in vLLM's content chunks) or malformed. */
export function measuredChatUsage(wire: unknown): Usage | undefined {
  if (!isRecord(wire)) return undefined;
  const promptTokens = tokenCount(wire['prompt_tokens']);
  const completionTokens = tokenCount(wire['completion_tokens']);
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  const details = wire['completion_tokens_details'];
  // Some servers report reasoning tokens flat on `usage` instead of in the details.
  const reasoningTokens =
    (isRecord(details) ? tokenCount(details['reasoning_tokens']) : undefined) ?? tokenCount(wire['reasoning_tokens']);
  return { promptTokens, completionTokens, ...(reasoningTokens !== undefined && { reasoningTokens }), usageSource: 'measured' };
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
  const calls = (message.tool_calls ?? []).map((call) => `${call.function.name} ${call.function.arguments}`);
  const { content } = message;
  if (content === null) return calls.join('\n');
  if (typeof content === 'string') return [content, ...calls].join('\n');
  return [...content.map((part) => (part.type === 'text' ? part.text : '')), ...calls].join('\n');
}
