/** Governed answers to shape (text, tool calls, reasoning, usage), and their stream as deltas. */
import type { ChatDelta, LLMResponse, ParsedToolCall, Usage } from '@pgw/core';

export interface AnswerParts {
  content?: string;
  reasoning?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  usage?: Partial<Usage>;
  finishReason?: string;
  model?: string;
}

export function governedAnswer(parts: AnswerParts): LLMResponse {
  const toolCalls: ParsedToolCall[] | undefined = parts.toolCalls?.map((call) => ({ ...call, input: JSON.parse(call.arguments) as unknown }));
  return {
    content: parts.content ?? '',
    ...(parts.reasoning !== undefined && { reasoningContent: parts.reasoning }),
    source: 'main',
    model: parts.model ?? 'gpt-4o-mini',
    cached: false,
    usage: { promptTokens: 11, completionTokens: 7, usageSource: 'measured', ...parts.usage },
    thinkingObservation: parts.reasoning !== undefined ? 'observed' : 'unknown',
    callStats: { logicalCallId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', attempts: 1, totalLatencyMs: 5, sourcesTried: ['main'] },
    ...(toolCalls !== undefined && toolCalls.length > 0 && { toolCalls }),
    ...(parts.finishReason !== undefined && { finishReason: parts.finishReason }),
  };
}

/** The governed answers every request's protocol shapes: text; a tool call; reasoning, cache and reasoning usage; a cut answer. */
export const ANSWERS: readonly [string, LLMResponse][] = [
  ['text', governedAnswer({ content: 'Oslo is the capital.' })],
  ['a tool call', governedAnswer({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }], finishReason: 'tool_calls' })],
  ['reasoning and usage details', governedAnswer({ reasoning: 'The user asks for a capital.', content: 'Oslo.', usage: { promptTokens: 40, completionTokens: 12, cachedPromptTokens: 30, reasoningTokens: 5 } })],
  ['text cut at its length', governedAnswer({ content: 'Oslo is', finishReason: 'length' })],
];

/** The deltas a stream of `answer` brings: reasoning, the text in two pieces, each tool call's name then its arguments. */
export function deltasOf(answer: LLMResponse): ChatDelta[] {
  const deltas: ChatDelta[] = [];
  if (answer.reasoningContent) deltas.push({ reasoningContent: answer.reasoningContent });
  const half = Math.ceil(answer.content.length / 2);
  if (answer.content !== '') deltas.push({ content: answer.content.slice(0, half) }, ...(half < answer.content.length ? [{ content: answer.content.slice(half) }] : []));
  (answer.toolCalls ?? []).forEach((call, index) => {
    deltas.push({ toolCalls: [{ index, id: call.id, name: call.name, arguments: '' }] }, { toolCalls: [{ index, arguments: call.arguments }] });
  });
  return deltas;
}
