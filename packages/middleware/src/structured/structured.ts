import { ResultInvalidError, type ChatMessage, type LLMResponse, type StructuredPolicy, type StructuredStrategy } from '@pgw/core';
import type { ZodType } from 'zod';
import type { GatewayChatRequest } from '../pipeline/chat-request.js';
import type { Call, Middleware, Next } from '../pipeline/compose.js';
import { parseStructuredAnswer } from './json-extract.js';
import { askForJson } from './json-prompt.js';
import { structuredJsonSchema } from './strict-json-schema.js';
import { checkToolCalls } from './tool-calls.js';

export interface StructuredMiddlewareOptions {
  policy: StructuredPolicy;
}

/** A usable answer, or what was wrong with it and the messages a re-ask appends. */
type Verdict = { ok: true; response: LLMResponse } | { ok: false; issues: string[]; feedback: ChatMessage[]; what: string };

/**
 * Typed results (docs/architecture.md#structured-output) and tool-call arguments. Each round goes through the retry loop below (so
 * every round counts in `callStats.attempts` and shares the call's deadline). A parse or validation
 * failure — of the structured answer, or of a tool call's arguments — re-asks with the answer and its
 * issues fed back, up to `maxRetries` times, switching to `escalation` after the first failure;
 * exhausted → ResultInvalidError carrying the last issues. A streamed call is never re-asked (its
 * tokens are already out): an invalid tool call there fails at once.
 */
export function structuredMiddleware(options: StructuredMiddlewareOptions): Middleware<GatewayChatRequest, LLMResponse> {
  const { policy } = options;
  // Most calls ask for no structure and offer no tools: they pass straight through.
  return (call, next) => (call.request.structured || call.request.tools ? ladder(call, next) : next(call));

  async function ladder(call: Call<GatewayChatRequest>, next: Next<GatewayChatRequest, LLMResponse>): Promise<LLMResponse> {
    const { structured: schema, toolSchemas, ...request } = call.request; // consumed here: the transport never sees them
    const jsonSchema = schema && structuredJsonSchema(schema);
    const maxRetries = call.ctx.onDelta ? 0 : policy.maxRetries;
    let conversation: ChatMessage[] = request.messages;
    let strategy: StructuredStrategy = policy.strategy;
    let failed: Extract<Verdict, { ok: false }> | undefined;
    let lastSource: string | undefined;
    for (let round = 0; round <= maxRetries; round += 1) {
      const response = await next({ ctx: call.ctx, request: roundRequest(request, conversation, jsonSchema, strategy) });
      const verdict = judge(response, schema, request, toolSchemas);
      if (verdict.ok) return verdict.response;
      failed = verdict;
      lastSource = response.source;
      conversation = [...conversation, ...verdict.feedback];
      strategy = policy.escalation;
    }
    const issues = failed?.issues ?? [];
    throw new ResultInvalidError({
      message: `${failed?.what ?? 'answer'} still invalid after ${maxRetries + 1} rounds: ${issues.join('; ')}`,
      sourceName: lastSource,
      issues,
    });
  }
}

/** A source whose model has no native json_schema gets the prompt form instead (chat-operation.ts). */
function roundRequest(
  request: GatewayChatRequest,
  conversation: ChatMessage[],
  jsonSchema: Record<string, unknown> | undefined,
  strategy: StructuredStrategy,
): GatewayChatRequest {
  if (jsonSchema === undefined) return { ...request, messages: conversation };
  return strategy === 'json_schema'
    ? { ...request, messages: conversation, responseFormat: { type: 'json_schema', name: 'response', schema: jsonSchema } }
    : { ...request, messages: askForJson(conversation, jsonSchema), responseFormat: undefined };
}

/** An answer with tool calls is judged by its calls' arguments; one without, by the structured schema if any. */
export function judge(
  response: LLMResponse,
  schema: ZodType | undefined,
  request: GatewayChatRequest,
  toolSchemas: GatewayChatRequest['toolSchemas'],
): Verdict {
  if (response.toolCalls?.length) {
    const checked = checkToolCalls(response.toolCalls, response.content, request.tools, toolSchemas);
    return checked.ok ? { ok: true, response: { ...response, toolCalls: checked.calls } } : { ...checked, what: 'tool call arguments' };
  }
  if (schema === undefined) return { ok: true, response };
  const parsed = parseStructuredAnswer(response.content, schema);
  if (parsed.ok) return { ok: true, response: { ...response, parsed: parsed.value } };
  const feedback: ChatMessage[] = [{ role: 'assistant', content: response.content }, { role: 'user', content: structuredFeedback(parsed.issues) }];
  return { ok: false, issues: parsed.issues, feedback, what: 'structured output' };
}

function structuredFeedback(issues: readonly string[]): string {
  return `Your previous answer could not be used:\n- ${issues.join('\n- ')}\nReply again with only the corrected JSON.`;
}
