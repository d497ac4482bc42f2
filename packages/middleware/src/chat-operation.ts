import type { ChatMessage, ChatRequest, ChatResult, ChatTransport, ThinkingContradictions } from '@pgw/core';
import type { AttemptOperation } from './operation.js';

/** Chat attempts: charged by usage; a 429 rate limit does not consume the attempt budget. */
export function chatOperation(transport: ChatTransport, thinking: ThinkingContradictions): AttemptOperation<ChatRequest, ChatResult> {
  return {
    tokenAccounting: 'tokens',
    rateLimitsConsumeBudget: false,
    invoke: (source, request, attempt) => transport.chat(source, request, attempt),
    usageOf: (result) => result.usage,
    observe: (source, result, ctx) => thinking.check(source.name, result.model, ctx.reasoningEffort, result.thinkingObservation),
    describe: (request, result) => ({
      model: result?.model,
      requestText: transcript(request.messages),
      responseText: result?.content,
      thinkingObservation: result?.thinkingObservation,
      ttftMs: result?.ttftMs,
    }),
  };
}

/** Messages as readable lines for telemetry; media parts are named, never inlined. */
export function transcript(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) => {
      const text =
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
      return `${message.role}: ${text}`;
    })
    .join('\n');
}
