import { estimateTokens } from './http-helpers.js';
import type { ChatMessage } from './types.js';
import { wireCallParts } from './wire-tool-call.js';

/** Messages as readable lines for telemetry; media parts are named, never inlined; tool calls as `name(arguments)`. */
export function transcript(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) => {
      const { content } = message;
      const text = Array.isArray(content)
        ? content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ')
        : (content ?? '');
      const calls = (message.tool_calls ?? []).map((call) => wireCallParts(call)).map(({ name, input }) => ` ${name}(${input})`).join('');
      return `${message.role}: ${text}${calls}`;
    })
    .join('\n');
}

/** The estimate a call's prompt is governed by before its usage is known (Anthropic's `count_tokens` answers it). */
export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  return estimateTokens(transcript(messages));
}
