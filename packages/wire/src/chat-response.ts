/** The governed answer in OpenAI's shapes: a `chat.completion`, and the `chat.completion.chunk`s of a stream. */
import { toWireCall, type ChatDelta, type LLMResponse, type Usage } from '@pgw/core';
import type { ChatCall } from './chat-request.js';
import { errorBody } from './failure.js';
import type { StreamEncoder } from './stream-encoder.js';

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export function openaiUsage(usage: Usage): OpenAIUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

const completionId = (logicalCallId: string) => `chatcmpl-${logicalCallId}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

export function chatCompletion(response: LLMResponse): Record<string, unknown> {
  const toolCalls = response.toolCalls?.map(toWireCall);
  // A structured answer is the validated value: what the client parsed, not the raw text it was repaired from.
  const content = response.parsed !== undefined ? JSON.stringify(response.parsed) : toolCalls && response.content === '' ? null : response.content;
  return {
    id: completionId(response.callStats.logicalCallId),
    object: 'chat.completion',
    created: nowSeconds(),
    model: response.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls && { tool_calls: toolCalls }),
          ...(response.reasoningContent && { reasoning_content: response.reasoningContent }),
        },
        finish_reason: response.finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: openaiUsage(response.usage),
  };
}

/** Writes one stream's chunks; every chunk of a stream shares its id, creation time and model. */
export class ChunkWriter {
  readonly #id: string;
  readonly #created = nowSeconds();
  readonly #model: string;
  #roleSent = false;

  constructor(logicalCallId: string, model: string) {
    this.#id = completionId(logicalCallId);
    this.#model = model;
  }

  delta(delta: ChatDelta): string {
    const wire: Record<string, unknown> = {};
    if (!this.#roleSent) {
      wire['role'] = 'assistant';
      this.#roleSent = true;
    }
    if (delta.content !== undefined) wire['content'] = delta.content;
    if (delta.reasoningContent !== undefined) wire['reasoning_content'] = delta.reasoningContent;
    if (delta.toolCalls) {
      // A custom call comes whole in one delta, and leaves as the custom call it is.
      wire['tool_calls'] = delta.toolCalls.map(({ index, id, type, name, arguments: args }) =>
        type === 'custom'
          ? { index, id, type, custom: { name, input: args } }
          : {
              index,
              ...(id !== undefined && { id, type: 'function' }),
              function: { ...(name !== undefined && { name }), ...(args !== undefined && { arguments: args }) },
            },
      );
    }
    return this.#chunk([{ index: 0, delta: wire, finish_reason: null, logprobs: null }]);
  }

  finish(response: LLMResponse): string {
    const reason = response.finishReason ?? (response.toolCalls ? 'tool_calls' : 'stop');
    return this.#chunk([{ index: 0, delta: this.#roleSent ? {} : { role: 'assistant', content: '' }, finish_reason: reason, logprobs: null }]);
  }

  usage(usage: Usage): string {
    return this.#chunk([], openaiUsage(usage));
  }

  #chunk(choices: unknown[], usage?: OpenAIUsage): string {
    const chunk = { id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices, ...(usage && { usage }) };
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}

/** Chat Completions: `chat.completion.chunk`s, the usage chunk when asked, `[DONE]`; a failure is a `data:` error, never `[DONE]`. */
export function chatEncoder(call: Pick<ChatCall, 'model' | 'includeUsage'>, callId: string): StreamEncoder {
  const chunks = new ChunkWriter(callId, call.model);
  return {
    start: () => '',
    delta: (delta) => chunks.delta(delta),
    finish: (answer) => chunks.finish(answer) + (call.includeUsage ? chunks.usage(answer.usage) : '') + 'data: [DONE]\n\n',
    fail: (failure) => `data: ${JSON.stringify(errorBody(failure))}\n\n`,
  };
}
