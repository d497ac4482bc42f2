import { ResultInvalidError, type ChatMessage, type LLMResponse, type StructuredPolicy, type StructuredStrategy } from '@pgw/core';
import { z, type ZodType } from 'zod';
import type { GatewayChatRequest } from './chat-request.js';
import type { Call, Middleware, Next } from './compose.js';
import { parseStructuredAnswer } from './json-extract.js';
import { askForJson } from './json-prompt.js';

export interface StructuredMiddlewareOptions {
  policy: StructuredPolicy;
}

/**
 * Typed results (docs/architecture.md#structured-output). Each round goes through the retry loop below (so every round counts in
 * `callStats.attempts` and shares the call's deadline). A parse or validation failure re-asks with the
 * answer and its issues fed back, up to `maxRetries` times, switching to `escalation` after the first
 * failure; exhausted → ResultInvalidError carrying the last issues.
 */
export function structuredMiddleware(options: StructuredMiddlewareOptions): Middleware<GatewayChatRequest, LLMResponse> {
  const { policy } = options;
  // Most calls ask for no structure: they pass straight through, without an extra async frame.
  return (call, next) => {
    const schema = call.request.structured;
    return schema ? ladder(call, next, schema) : next(call);
  };

  async function ladder(
    call: Call<GatewayChatRequest>,
    next: Next<GatewayChatRequest, LLMResponse>,
    schema: ZodType,
  ): Promise<LLMResponse> {
    const request: GatewayChatRequest = { ...call.request };
    delete request.structured; // consumed here: the transport never sees it
    const jsonSchema = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'output' }) as Record<string, unknown>;
    let conversation: ChatMessage[] = request.messages;
    let strategy: StructuredStrategy = policy.strategy;
    let issues: string[] = [];
    let lastSource: string | undefined;
    for (let round = 0; round <= policy.maxRetries; round += 1) {
      // A source whose model has no native json_schema gets the prompt form instead (chat-operation.ts).
      const native = strategy === 'json_schema';
      const response = await next({
        ctx: call.ctx,
        request: native
          ? { ...request, messages: conversation, responseFormat: { type: 'json_schema', name: 'response', schema: jsonSchema } }
          : { ...request, messages: askForJson(conversation, jsonSchema), responseFormat: undefined },
      });
      const parsed = parseStructuredAnswer(response.content, schema);
      if (parsed.ok) return { ...response, parsed: parsed.value };
      issues = parsed.issues;
      lastSource = response.source;
      conversation = [...conversation, { role: 'assistant', content: response.content }, { role: 'user', content: feedback(issues) }];
      strategy = policy.escalation;
    }
    throw new ResultInvalidError({
      message: `structured output still invalid after ${policy.maxRetries + 1} rounds: ${issues.join('; ')}`,
      sourceName: lastSource,
      issues,
    });
  }
}

function feedback(issues: readonly string[]): string {
  return `Your previous answer could not be used:\n- ${issues.join('\n- ')}\nReply again with only the corrected JSON.`;
}
