/** A chat answer, however it arrived (one JSON body or a stream), and its translation to ChatResult. */
import type { ChatMessage, ChatResult, ToolCall, Usage } from '@pgw/core';
import { observeThinking } from '@pgw/core/internal';
import { parseAnswerBody } from './answer-json.js';
import { invalidAnswer, type AnswerOrigin } from './error-translation.js';
import { isRecord } from './json.js';
import { parseToolCalls } from './tool-wire.js';
import { estimatedChatUsage, measuredChatUsage } from './usage.js';

export interface ChatAnswer {
  content: string;
  reasoningContent: string;
  finishReason?: string;
  toolCalls?: ToolCall[];
  /** Measured usage; undefined when the upstream reported none. */
  usage?: Usage;
  ttftMs?: number;
}

export function toChatResult(answer: ChatAnswer, modelId: string, messages: readonly ChatMessage[]): ChatResult {
  const { content, reasoningContent, finishReason, toolCalls, ttftMs } = answer;
  const calls = (toolCalls ?? []).map((call) => `${call.name} ${call.arguments}`).join('\n');
  const usage = answer.usage ?? estimatedChatUsage(messages, content + reasoningContent + calls);
  return {
    content,
    ...(reasoningContent !== '' && { reasoningContent }),
    // The configured model names the price and telemetry row; upstreams often answer with a dated alias.
    model: modelId,
    usage,
    thinkingObservation: observeThinking({
      ...(reasoningContent !== '' && { reasoningText: reasoningContent }),
      ...(answer.usage?.reasoningTokens !== undefined && { reasoningTokens: answer.usage.reasoningTokens }),
    }),
    ...(finishReason !== undefined && { finishReason }),
    ...(toolCalls !== undefined && { toolCalls }),
    ...(ttftMs !== undefined && { ttftMs }),
  };
}

/** A non-streamed `chat.completion` body (or an in-band error in its place). */
export function parseChatCompletion(body: string, origin: AnswerOrigin): ChatAnswer {
  const json = parseAnswerBody(body, origin, 'choices');
  const choices = json['choices'];
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice)) throw invalidAnswer(origin, 'no choices', body);
  const message = choice['message'];
  if (!isRecord(message)) throw invalidAnswer(origin, 'choices[0].message is missing', body);
  const content = message['content'] ?? '';
  if (typeof content !== 'string') throw invalidAnswer(origin, 'choices[0].message.content is not a string', body);
  const finishReason = choice['finish_reason'];
  const usage = measuredChatUsage(json['usage']);
  const toolCalls = parseToolCalls(message['tool_calls'], origin, body);
  return {
    content,
    reasoningContent: reasoningText(message),
    ...(typeof finishReason === 'string' && { finishReason }),
    ...(toolCalls !== undefined && { toolCalls }),
    ...(usage !== undefined && { usage }),
  };
}

/** Reasoning text of a message or delta: `reasoning_content` (DeepSeek, Qwen, vLLM) or `reasoning` (OpenRouter). */
export function reasoningText(part: Record<string, unknown>): string {
  const text = part['reasoning_content'] ?? part['reasoning'];
  return typeof text === 'string' ? text : '';
}
