import type { ChatMessage, ChatRequest } from '@pgw/core';

/** The json_repair strategy: the prompt itself asks for JSON (on the last user turn). */
export function askForJson(messages: readonly ChatMessage[], jsonSchema: Record<string, unknown>): ChatMessage[] {
  const instruction = `Respond with only a JSON value that conforms to this JSON Schema:\n${JSON.stringify(jsonSchema)}`;
  const last = messages.at(-1);
  if (!last || last.role !== 'user') return [...messages, { role: 'user', content: instruction }];
  const content = Array.isArray(last.content)
    ? [...last.content, { type: 'text' as const, text: instruction }]
    : `${last.content ?? ''}\n\n${instruction}`;
  return [...messages.slice(0, -1), { ...last, content }];
}

/**
 * The request as a model without native `json_schema` must get it: the schema moves from
 * `responseFormat` into the prompt (the json_repair form). The structured ladder decides per source.
 */
export function inPromptJsonRequest(request: ChatRequest): ChatRequest {
  const format = request.responseFormat;
  if (format === undefined) return request;
  return { ...request, messages: askForJson(request.messages, format.schema), responseFormat: undefined };
}
