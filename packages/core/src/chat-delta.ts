import type { ChatDelta, ToolCall } from './types.js';

/**
 * A whole answer as the one delta a stream yields when nothing was streamed (a model that answers
 * whole, a cache hit): its content, reasoning and complete tool calls. Undefined when it is empty.
 */
export function wholeAnswerDelta(answer: { content: string; reasoningContent?: string; toolCalls?: readonly ToolCall[] }): ChatDelta | undefined {
  const { content, reasoningContent, toolCalls = [] } = answer;
  if (content === '' && !reasoningContent && toolCalls.length === 0) return undefined;
  return {
    ...(content !== '' && { content }),
    ...(reasoningContent && { reasoningContent }),
    ...(toolCalls.length > 0 && {
      toolCalls: toolCalls.map(({ id, type, name, arguments: args }, index) => ({ index, id, ...(type !== undefined && { type }), name, arguments: args })),
    }),
  };
}
