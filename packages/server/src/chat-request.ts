/**
 * An OpenAI chat completion request → the governed client's arguments. Fields the server knows are
 * checked here (a bad one is an InvalidRequestFieldError naming it, nothing is sent upstream); the
 * client then checks the messages and options as for any caller. Unknown fields travel upstream in
 * the sampling overlay, as a pass-through proxy would send them.
 */
import type { ChatMessage, ChatOptions, ChatTool } from '@pgw/client';
import { z } from 'zod';
import { InvalidRequestFieldError } from './request-error.js';

export interface ChatCall {
  model: string;
  messages: ChatMessage[];
  options: ChatOptions;
  stream: boolean;
  /** `stream_options.include_usage`: a final chunk with the usage. */
  includeUsage: boolean;
}

/** Fields mapped to client options, or consumed by the server itself. */
const MAPPED = new Set(['model', 'messages', 'stream', 'stream_options', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'reasoning_effort', 'user', 'n']);

export function chatCall(body: unknown): ChatCall {
  const fields = plainObject(body, 'body');
  const model = fields['model'];
  if (typeof model !== 'string' || model === '') throw new InvalidRequestFieldError('model', 'must be a non-empty string');
  if (!Array.isArray(fields['messages']) || fields['messages'].length === 0) {
    throw new InvalidRequestFieldError('messages', 'must be a non-empty array of messages');
  }
  const stream = optionalBoolean(fields['stream'], 'stream') ?? false;
  const streamOptions = fields['stream_options'] === undefined || fields['stream_options'] === null ? {} : plainObject(fields['stream_options'], 'stream_options');
  const includeUsage = optionalBoolean(streamOptions['include_usage'], 'stream_options.include_usage') ?? false;
  if (fields['n'] !== undefined && fields['n'] !== null && fields['n'] !== 1) throw new InvalidRequestFieldError('n', 'must be 1 (one choice per call)');

  const sampling: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (!MAPPED.has(key) && value !== undefined) sampling[key] = value;
  const options: ChatOptions = { ...toolOptions(fields), ...effort(fields), ...user(fields) };
  const format = responseFormat(fields['response_format'], stream);
  if (format.structured) options.structured = format.structured;
  if (format.passThrough) sampling['response_format'] = format.passThrough;
  if (Object.keys(sampling).length > 0) options.sampling = sampling;
  return { model, messages: fields['messages'] as ChatMessage[], options, stream, includeUsage };
}

function toolOptions(fields: Record<string, unknown>): Pick<ChatOptions, 'tools' | 'toolChoice' | 'parallelToolCalls'> {
  const { tools, tool_choice: choice, parallel_tool_calls: parallel } = fields;
  if (tools === undefined || tools === null) {
    if (choice !== undefined && choice !== null && choice !== 'none' && choice !== 'auto') throw new InvalidRequestFieldError('tool_choice', 'needs tools');
    return {};
  }
  if (!Array.isArray(tools) || tools.length === 0) throw new InvalidRequestFieldError('tools', 'must be a non-empty array of { type: "function", function }');
  const byName: Record<string, ChatTool> = {};
  tools.forEach((tool: unknown, index) => {
    const at = `tools[${index}]`;
    const entry = plainObject(tool, at);
    if (entry['type'] !== 'function') throw new InvalidRequestFieldError(`${at}.type`, "must be 'function'");
    const fn = plainObject(entry['function'], `${at}.function`);
    if (typeof fn['name'] !== 'string') throw new InvalidRequestFieldError(`${at}.function.name`, 'must be a string');
    if (Object.hasOwn(byName, fn['name'])) throw new InvalidRequestFieldError(`${at}.function.name`, `repeats '${fn['name']}'`);
    if (fn['description'] !== undefined && typeof fn['description'] !== 'string') throw new InvalidRequestFieldError(`${at}.function.description`, 'must be a string');
    const parameters = fn['parameters'] === undefined ? { type: 'object', properties: {} } : plainObject(fn['parameters'], `${at}.function.parameters`);
    byName[fn['name']] = { parameters, ...(fn['description'] !== undefined && { description: fn['description'] as string }) };
  });
  return {
    tools: byName,
    ...(choice !== undefined && choice !== null && { toolChoice: toolChoice(choice) }),
    ...(parallel !== undefined && parallel !== null && { parallelToolCalls: optionalBoolean(parallel, 'parallel_tool_calls')! }),
  };
}

function toolChoice(choice: unknown): NonNullable<ChatOptions['toolChoice']> {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  const named = plainObject(choice, 'tool_choice');
  const fn = named['type'] === 'function' ? plainObject(named['function'], 'tool_choice.function') : undefined;
  if (typeof fn?.['name'] !== 'string') throw new InvalidRequestFieldError('tool_choice', "must be 'auto', 'none', 'required' or { type: 'function', function: { name } }");
  return { name: fn['name'] };
}

function effort(fields: Record<string, unknown>): Pick<ChatOptions, 'reasoningEffort'> {
  const value = fields['reasoning_effort'];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'string') throw new InvalidRequestFieldError('reasoning_effort', 'must be a string');
  return { reasoningEffort: value };
}

/** OpenAI's end-user id goes into the call's telemetry `meta`, not upstream. */
function user(fields: Record<string, unknown>): Pick<ChatOptions, 'meta'> {
  const value = fields['user'];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'string') throw new InvalidRequestFieldError('user', 'must be a string');
  return { meta: { user: value } };
}

interface Format {
  structured?: z.ZodType;
  passThrough?: unknown;
}

/**
 * `json_schema` becomes the client's governed structured output (validated, re-asked on failure)
 * for a whole answer; a stream cannot take tokens back, so there it goes upstream as sent, like
 * `json_object` and `text`.
 */
function responseFormat(value: unknown, stream: boolean): Format {
  if (value === undefined || value === null) return {};
  const format = plainObject(value, 'response_format');
  if (format['type'] === 'text' || format['type'] === 'json_object') return { passThrough: format };
  if (format['type'] !== 'json_schema') throw new InvalidRequestFieldError('response_format.type', "must be 'text', 'json_object' or 'json_schema'");
  const spec = plainObject(format['json_schema'], 'response_format.json_schema');
  if (typeof spec['name'] !== 'string') throw new InvalidRequestFieldError('response_format.json_schema.name', 'must be a string');
  const schema = plainObject(spec['schema'], 'response_format.json_schema.schema');
  if (stream) return { passThrough: format };
  try {
    return { structured: z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) };
  } catch (error) {
    throw new InvalidRequestFieldError('response_format.json_schema.schema', `is not a JSON Schema this server can validate: ${(error as Error).message}`);
  }
}

export function plainObject(value: unknown, param: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidRequestFieldError(param, 'must be a JSON object');
  return value as Record<string, unknown>;
}

function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new InvalidRequestFieldError(param, 'must be a boolean');
  return value;
}
