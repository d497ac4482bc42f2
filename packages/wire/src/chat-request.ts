/**
 * An OpenAI chat completion request → the governed client's arguments, checked by one zod schema (a
 * bad field is an InvalidRequestFieldError naming it, nothing is sent upstream). Unknown fields travel
 * upstream in the sampling overlay, as a pass-through proxy would send them.
 */
import type { ChatOptions } from '@pgw/client';
import type { ChatMessage } from '@pgw/core';
import { z } from 'zod';
import { callerSchema } from './caller-schema.js';
import { chatMessage, effortField, jsonObject, nullish, parseRequest, userField } from './request-schema.js';
import { InvalidRequestFieldError } from './request-field-error.js';
import { toolOptions } from './tool-fields.js';

export interface ChatCall {
  model: string;
  messages: ChatMessage[];
  options: ChatOptions;
  stream: boolean;
  /** `stream_options.include_usage`: a final chunk with the usage. */
  includeUsage: boolean;
}

const functionTool = z.strictObject({
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1), description: z.string().optional(), parameters: jsonObject.optional() }),
});
const customTool = z.strictObject({
  type: z.literal('custom'),
  custom: z.looseObject({ name: z.string().min(1), description: z.string().optional(), format: jsonObject.optional() }),
});
const tool = z.discriminatedUnion('type', [functionTool, customTool], { error: 'must be a function tool or a custom tool' });

const namedChoice = z.union([
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
  z.looseObject({ type: z.literal('custom'), custom: z.looseObject({ name: z.string() }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({ type: z.literal('json_schema'), json_schema: z.looseObject({ name: z.string(), schema: jsonObject }) }),
]);

const chatBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(chatMessage).min(1),
  stream: nullish(z.boolean()),
  stream_options: nullish(z.looseObject({ include_usage: nullish(z.boolean()) })),
  tools: nullish(z.array(tool)),
  tool_choice: nullish(z.union([z.enum(['auto', 'none', 'required']), namedChoice])),
  parallel_tool_calls: nullish(z.boolean()),
  response_format: nullish(responseFormat),
  reasoning_effort: effortField,
  user: userField,
  n: nullish(z.literal(1)),
});

/** Fields mapped to client options, or consumed by the server itself. */
const MAPPED = new Set(Object.keys(chatBody.shape));

export function chatCall(body: unknown): ChatCall {
  const fields = parseRequest(chatBody, body);
  const stream = fields.stream ?? false;
  const sampling: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (!MAPPED.has(key) && value !== undefined) sampling[key] = value;
  const options: ChatOptions = {
    ...chatToolOptions(fields),
    ...(fields.reasoning_effort !== undefined && { reasoningEffort: fields.reasoning_effort }),
    // OpenAI's end-user id goes into the call's telemetry `meta`, not upstream.
    ...(fields.user !== undefined && { meta: { user: fields.user } }),
  };
  const format = fields.response_format;
  // `json_schema` becomes the governed structured output for a whole answer; a stream cannot take tokens back, so there it goes upstream as sent.
  if (format?.type === 'json_schema' && !stream) options.structured = callerSchema(format.json_schema.schema, 'response_format.json_schema.schema');
  else if (format !== undefined) sampling['response_format'] = format;
  if (Object.keys(sampling).length > 0) options.sampling = sampling;
  return { model: fields.model, messages: toolConversation(fields.messages as ChatMessage[]), options, stream, includeUsage: fields.stream_options?.include_usage ?? false };
}

const wireCall = z.union([
  z.looseObject({ id: z.string().min(1), type: z.literal('function'), function: z.looseObject({ name: z.string(), arguments: z.string() }) }),
  z.looseObject({ id: z.string().min(1), type: z.literal('custom'), custom: z.looseObject({ name: z.string(), input: z.string() }) }),
]);
const wireCalls = z.array(wireCall).min(1);

/**
 * The messages as the client takes a tool conversation, each refusal naming its field: a `tool`
 * message answers a call of an earlier assistant message; content is null only beside tool calls
 * (an assistant turn sent without content and without calls is an empty one).
 */
function toolConversation(messages: ChatMessage[]): ChatMessage[] {
  const called = new Set<string>();
  return messages.map((message, index) => {
    const at = `messages[${index}]`;
    const raw = message as unknown as Record<string, unknown>;
    if (raw['tool_calls'] !== undefined) {
      if (message.role !== 'assistant') throw new InvalidRequestFieldError(`${at}.tool_calls`, 'is allowed on an assistant message only');
      parseRequest(z.looseObject({ tool_calls: wireCalls }), raw, at).tool_calls.forEach((call) => called.add(call.id));
    }
    if (message.role === 'tool') {
      const id = raw['tool_call_id'];
      if (typeof id !== 'string' || !called.has(id)) throw new InvalidRequestFieldError(`${at}.tool_call_id`, 'must be the id of a tool call of an earlier assistant message');
    } else if (raw['tool_call_id'] !== undefined) throw new InvalidRequestFieldError(`${at}.tool_call_id`, 'is allowed on a tool message only');
    if (message.content !== null || raw['tool_calls'] !== undefined) return message;
    if (message.role !== 'assistant') throw new InvalidRequestFieldError(`${at}.content`, 'is required');
    return { ...message, content: '' };
  });
}

type ChatFields = z.output<typeof chatBody>;

function chatToolOptions({ tools, tool_choice: choice, parallel_tool_calls: parallel }: ChatFields) {
  return toolOptions(
    tools?.map((tool) => (tool.type === 'custom' ? { ...tool.custom, type: 'custom' as const } : tool.function)),
    choice === undefined || typeof choice === 'string' ? choice : { name: choice.type === 'custom' ? choice.custom.name : choice.function.name },
    parallel,
    { nameField: (index) => `tools[${index}].${tools?.[index]?.type === 'custom' ? 'custom' : 'function'}.name`, choiceField: 'tool_choice' },
  );
}
