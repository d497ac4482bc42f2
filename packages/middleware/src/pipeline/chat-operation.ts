import { estimatePromptTokens, transcript, wholeAnswerDelta } from '@pgw/core';
import type { ChatModel, ChatRequest, ChatResult, StreamAttemptContext } from '@pgw/core';
import type { ThinkingContradictions } from '@pgw/core/internal';
import { inPromptJsonRequest } from '../structured/json-prompt.js';
import type { AttemptOperation } from './operation.js';

/** Chat attempts: charged by usage; a 429 rate limit does not consume the attempt budget. */
export function chatOperation(thinking: ThinkingContradictions): AttemptOperation<ChatRequest, ChatResult, ChatModel> {
  return {
    tokenAccounting: 'tokens',
    rateLimitsConsumeBudget: false,
    invoke: (source, request, attempt) => {
      const { model } = source;
      const asked = request.responseFormat !== undefined && !model.capabilities.jsonSchema ? inPromptJsonRequest(request) : request;
      return attempt.onDelta === undefined ? model.generate(asked, attempt) : streamed(model, asked, attempt as StreamAttemptContext);
    },
    usageOf: (result) => result.usage,
    observe: (source, result, ctx) => thinking.check(source.name, result.model, ctx.reasoningEffort, result.thinkingObservation),
    describe: (request, result) => ({
      model: result?.model,
      requestText: transcript(request.messages),
      responseText: result?.content,
      thinkingObservation: result?.thinkingObservation,
      ttftMs: result?.ttftMs,
      toolCalls: result?.toolCalls?.length,
    }),
    budgetTokens: (request) => ({ promptTokens: estimatePromptTokens(request.messages), maxOutputTokens: maxTokensOf(request.sampling) }),
  };
}

/** The caller's bound on the answer, under either of its wire names. */
function maxTokensOf(sampling: Record<string, unknown>): number | undefined {
  const bound = sampling.max_completion_tokens ?? sampling.max_tokens;
  return typeof bound === 'number' && Number.isFinite(bound) && bound >= 0 ? bound : undefined;
}

/** A model without `stream` answers whole: its answer reaches the caller as one delta. */
async function streamed(model: ChatModel, request: ChatRequest, attempt: StreamAttemptContext): Promise<ChatResult> {
  if (model.stream !== undefined) return model.stream(request, attempt);
  const result = await model.generate(request, attempt);
  const delta = wholeAnswerDelta(result);
  if (delta !== undefined) attempt.onDelta(delta);
  return result;
}
