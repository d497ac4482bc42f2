/**
 * An OpenAI Responses request (`POST /v1/responses`) → the governed client's arguments, checked by
 * one zod schema: a bad field, or one this route cannot honour (a stored prompt, a background run),
 * is an InvalidRequestFieldError naming it, and nothing is sent upstream. Hosted and namespace tools
 * are read by responses-tools.ts. A continuation (`previous_response_id`) is built from the stored
 * conversation's items, then the request's own (`instructions` are the request's only, as OpenAI
 * does). Fields of the Responses API with no meaning for a governed chat call (`include`,
 * `truncation`, …) are accepted and ignored; the rest of the body is not sent upstream, which speaks
 * Chat Completions.
 */
import type { ChatOptions } from '@pgw/client';
import type { ChatMessage, ContentPart, WireToolCall } from '@pgw/core';
import { z } from 'zod';
import { callerSchema } from './caller-schema.js';
import { InvalidRequestFieldError } from './request-field-error.js';
import { effortField, jsonObject, nullish, parseRequest, userField } from './request-schema.js';
import { echoedTools, namespacedName, responsesTool, upstreamTools, type HostedToolPolicy, type NamespacedNames } from './responses-tools.js';
import { toolOptions } from './tool-fields.js';

export interface ResponsesCall {
  model: string;
  messages: ChatMessage[];
  options: ChatOptions;
  stream: boolean;
  /** The response this one continues: its conversation is `prior`'s items. */
  previousResponseId: string | undefined;
  /** The input items of the whole conversation (the stored chain's, then this request's), kept with a stored response. */
  input: unknown[];
  /** The request fields a response object repeats back. */
  echo: ResponseEcho;
  /** Upstream tool name → the namespace and name its calls are answered under. */
  namespaced: NamespacedNames;
  /** What the answer's headers add: the hosted tools dropped (`x-pgw-dropped-tools`). */
  headers: Record<string, string>;
}

export interface ResponseEcho {
  instructions: string | null;
  tools: unknown[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  text: { format: Record<string, unknown> };
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  previous_response_id: string | null;
  store: boolean;
  /** Absent when not sent: the API's `user` is a string, never null. */
  user?: string;
}

const text = z.string();
const inputPart = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('input_text'), text }),
  z.looseObject({ type: z.literal('output_text'), text }),
  z.looseObject({ type: z.literal('refusal'), refusal: text }),
  z.looseObject({ type: z.literal('input_image'), image_url: z.string().min(1, 'needs image_url (file_id is not supported)'), detail: z.string().optional() }),
]);
const messageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: z.union([text, z.array(inputPart)]),
});
// A call of a namespace's tool names its namespace: upstream, its name is the joined one.
const callName = { name: z.string().min(1), namespace: nullish(z.string().min(1)) };
const functionCall = z.looseObject({ type: z.literal('function_call'), call_id: z.string().min(1), ...callName, arguments: text });
const customCall = z.looseObject({ type: z.literal('custom_tool_call'), call_id: z.string().min(1), ...callName, input: text });
const toolOutput = z.union([text, z.array(inputPart)]);
const functionOutput = z.looseObject({ type: z.enum(['function_call_output', 'custom_tool_call_output']), call_id: z.string().min(1), output: toolOutput });
// A reasoning item sent back (the model's earlier thinking): the upstream speaks Chat Completions and cannot take it.
const reasoningItem = z.looseObject({ type: z.literal('reasoning') });
const inputItem = z.union([messageItem, functionCall, customCall, functionOutput, reasoningItem], {
  error: 'must be a message, function_call, function_call_output, custom_tool_call, custom_tool_call_output or reasoning item',
});

const toolChoice = z.union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.enum(['function', 'custom']), name: z.string().min(1) })], {
  error: 'must be "auto", "none", "required" or {"type":"function"|"custom","name":…}',
});

const format = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({ type: z.literal('json_schema'), name: z.string().min(1), schema: jsonObject, strict: nullish(z.boolean()), description: nullish(z.string()) }),
]);

const refused = (why: string) => z.unknown().refine((value) => value === null || value === false, { message: why }).optional();

const responsesBody = z.looseObject({
  model: z.string().min(1),
  // Its items are checked apart (inputItems), so a bad one is named by its index, not as `input` whole.
  input: z.union([text, z.array(z.unknown()).min(1)], { error: 'must be a string or a non-empty array of input items' }),
  instructions: nullish(text),
  stream: nullish(z.boolean()),
  tools: nullish(z.array(responsesTool)),
  tool_choice: nullish(toolChoice),
  parallel_tool_calls: nullish(z.boolean()),
  text: nullish(z.looseObject({ format: nullish(format) })),
  reasoning: nullish(z.looseObject({ effort: effortField })),
  max_output_tokens: nullish(z.number().int().positive()),
  temperature: nullish(z.number()),
  top_p: nullish(z.number()),
  user: userField,
  metadata: nullish(z.record(z.string(), z.string())),
  store: nullish(z.boolean()),
  previous_response_id: nullish(z.string().min(1)),
  background: refused('is not supported: a governed call answers on its own request'),
  prompt: refused('is not supported: stored prompts live at OpenAI'),
  conversation: refused('is not supported: send the whole conversation in input'),
});

const inputItems = z.looseObject({ input: z.array(inputItem) });

type ResponsesFields = z.output<typeof responsesBody>;
type InputItem = z.output<typeof inputItem>;

/** How a request is read: what a hosted tool gets, and `prior`, the stored conversation's items a `previous_response_id` continues (not yet read on the first parse of a continuation). */
export interface ResponsesReading {
  hostedTools: HostedToolPolicy;
  prior?: readonly unknown[] | undefined;
}

export function responsesCall(body: unknown, { hostedTools, prior }: ResponsesReading): ResponsesCall {
  const fields = parseRequest(responsesBody, body);
  const upstream = upstreamTools(fields.tools ?? [], hostedTools);
  // A continuation's outputs answer calls of its stored items, which the first parse has not read.
  const callsKnown = prior !== undefined || fields.previous_response_id === undefined;
  const stream = fields.stream ?? false;
  const sampling: Record<string, unknown> = {};
  if (fields.max_output_tokens !== undefined) sampling['max_tokens'] = fields.max_output_tokens;
  if (fields.temperature !== undefined) sampling['temperature'] = fields.temperature;
  if (fields.top_p !== undefined) sampling['top_p'] = fields.top_p;
  const options: ChatOptions = {
    ...toolOptions(
      upstream.tools,
      fields.tool_choice === undefined || typeof fields.tool_choice === 'string' ? fields.tool_choice : { name: fields.tool_choice.name },
      fields.parallel_tool_calls,
      { nameField: (index) => upstream.fields[index]!, choiceField: 'tool_choice' },
    ),
    ...(fields.reasoning?.effort !== undefined && { reasoningEffort: fields.reasoning.effort }),
  };
  // The end-user id and the tools dropped go into the call's telemetry `meta`, not upstream.
  const meta = { ...(fields.user !== undefined && { user: fields.user }), ...(upstream.dropped.length > 0 && { droppedTools: upstream.dropped }) };
  if (Object.keys(meta).length > 0) options.meta = meta;
  const wanted = fields.text?.format;
  // As on the chat route: a whole answer gets the governed structured output, a stream the upstream's.
  if (wanted?.type === 'json_schema' && !stream) options.structured = callerSchema(wanted.schema, 'text.format.schema');
  else if (wanted?.type === 'json_schema') sampling['response_format'] = { type: 'json_schema', json_schema: { name: wanted.name, schema: wanted.schema, strict: wanted.strict ?? undefined } };
  else if (wanted?.type === 'json_object') sampling['response_format'] = { type: 'json_object' };
  if (Object.keys(sampling).length > 0) options.sampling = sampling;
  const own = typeof fields.input === 'string' ? [{ type: 'message', role: 'user', content: fields.input }] : fields.input;
  return {
    model: fields.model,
    messages: conversation(fields.instructions, own, prior ?? [], callsKnown),
    options,
    stream,
    previousResponseId: fields.previous_response_id,
    input: [...(prior ?? []), ...own],
    echo: echoOf(fields),
    namespaced: upstream.namespaced,
    headers: upstream.dropped.length > 0 ? { 'x-pgw-dropped-tools': upstream.dropped.join(', ') } : {},
  };
}

/**
 * `instructions` first, then the stored items and the request's in order; consecutive calls of the
 * assistant share one message. With `callsKnown`, a tool output answering no earlier call is refused.
 */
function conversation(instructions: string | undefined, own: readonly unknown[], prior: readonly unknown[], callsKnown: boolean): ChatMessage[] {
  const messages: ChatMessage[] = instructions !== undefined ? [{ role: 'system', content: instructions }] : [];
  // The stored items passed this check when they were kept; the request's are named by their index in `input`.
  const items: InputItem[] = [...parseRequest(inputItems, { input: prior }).input, ...parseRequest(inputItems, { input: own }).input];
  const called = new Set<string>();
  items.forEach((item, at) => {
    const index = at - prior.length;
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      called.add(item.call_id);
      return void assistantCalls(messages).push(wireCall(item));
    }
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      if (callsKnown && !called.has(item.call_id)) throw new InvalidRequestFieldError(`input[${index}].call_id`, 'must be the call_id of an earlier function_call or custom_tool_call');
      return void messages.push({ role: 'tool', tool_call_id: item.call_id, content: typeof item.output === 'string' ? item.output : partsText(item.output, `input[${index}].output`) });
    }
    if (item.type === 'reasoning') return;
    const { role: sent, content } = item as z.output<typeof messageItem>;
    const role = sent === 'developer' ? 'system' : sent;
    messages.push({ role, content: typeof content === 'string' ? content : contentOf(content, role, `input[${index}].content`) });
  });
  return messages;
}

function wireCall(item: z.output<typeof functionCall> | z.output<typeof customCall>): WireToolCall {
  const name = item.namespace === undefined ? item.name : namespacedName(item.namespace, item.name);
  return item.type === 'function_call' ? { id: item.call_id, type: 'function', function: { name, arguments: item.arguments } } : { id: item.call_id, type: 'custom', custom: { name, input: item.input } };
}

/** The assistant message the next tool call joins: the last one if it is the assistant's, else a new one. */
function assistantCalls(messages: ChatMessage[]): WireToolCall[] {
  const last = messages.at(-1);
  if (last?.role === 'assistant') return (last.tool_calls ??= []);
  const calls: WireToolCall[] = [];
  messages.push({ role: 'assistant', content: null, tool_calls: calls });
  return calls;
}

type InputPart = z.output<typeof inputPart>;

/** A user's parts keep their images; any other role's content is its text. */
function contentOf(parts: readonly InputPart[], role: ChatMessage['role'], field: string): string | ContentPart[] {
  if (role !== 'user') return partsText(parts, field);
  return parts.map((part) => (part.type === 'input_image' ? { type: 'image_url', image_url: { url: part.image_url, ...(part.detail !== undefined && { detail: part.detail }) } } : { type: 'text', text: textOf(part) }));
}

function partsText(parts: readonly InputPart[], field: string): string {
  return parts
    .map((part, index) => {
      if (part.type === 'input_image') throw new InvalidRequestFieldError(`${field}[${index}]`, 'an image is accepted in a user message only');
      return textOf(part);
    })
    .join('');
}

const textOf = (part: Exclude<InputPart, { type: 'input_image' }>) => (part.type === 'refusal' ? part.refusal : part.text);

function echoOf(fields: ResponsesFields): ResponseEcho {
  return {
    instructions: fields.instructions ?? null,
    tools: echoedTools(fields.tools ?? []),
    tool_choice: fields.tool_choice ?? 'auto',
    parallel_tool_calls: fields.parallel_tool_calls ?? true,
    text: { format: fields.text?.format ?? { type: 'text' } },
    temperature: fields.temperature ?? null,
    top_p: fields.top_p ?? null,
    max_output_tokens: fields.max_output_tokens ?? null,
    metadata: fields.metadata ?? {},
    previous_response_id: fields.previous_response_id ?? null,
    store: fields.store ?? true,
    ...(fields.user !== undefined && { user: fields.user }),
  };
}
