/**
 * Validation of a chat call's tool options (`tools`, `toolChoice`, `parallelToolCalls`) and of the
 * tool conversation in its messages. Runs before the call starts: a bad one is a TypeError naming
 * the option, nothing is sent, no row is written.
 */
import type { ChatMessage, ToolChoice, ToolDefinition } from '@pgw/core';
import type { GatewayChatRequest, ToolSchemas } from '@pgw/middleware';
import { z, type ZodType } from 'zod';
import { assertJson, isPlainObject } from './call-input.js';

/**
 * A tool a chat call offers: a function, whose `parameters` is a zod schema or a JSON Schema object
 * whose type is `object`, or a custom tool (`type: 'custom'`, OpenAI's freeform tools), whose call
 * carries free text, bound by `format` (a grammar or `{ type: 'text' }`) when given.
 */
export type ChatTool =
  | { description?: string; type?: undefined; parameters: ZodType | Record<string, unknown> }
  | { description?: string; type: 'custom'; format?: Record<string, unknown> };

export interface ToolOptions {
  /** The tools the model may call, by name (`^[a-zA-Z0-9_-]{1,64}$`). */
  tools?: Readonly<Record<string, ChatTool>>;
  /** `'auto'` (the upstream's default), `'none'`, `'required'`, or `{ name }` to force one tool. */
  toolChoice?: ToolChoice;
  /** Whether the model may ask for several calls in one answer (the upstream's default when omitted). */
  parallelToolCalls?: boolean;
}

export const TOOL_OPTIONS = ['tools', 'toolChoice', 'parallelToolCalls'];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const CHOICES = new Set(['auto', 'none', 'required']);

type ToolRequest = Pick<GatewayChatRequest, 'tools' | 'toolChoice' | 'parallelToolCalls' | 'toolSchemas'>;

/** The request's tool part: JSON Schema definitions for the wire, zod schemas kept for validating the calls. */
export function toolRequest(options: ToolOptions, method: string, extraKeys: readonly string[] = []): ToolRequest {
  const { tools, toolChoice, parallelToolCalls } = options;
  if (tools === undefined) {
    // Plain checks, not a find over a literal array: this runs on every chat call.
    if (options.toolChoice !== undefined) throw new TypeError(`${method}(toolChoice) needs ${method}(tools)`);
    if (options.parallelToolCalls !== undefined) throw new TypeError(`${method}(parallelToolCalls) needs ${method}(tools)`);
    return {};
  }
  if (!isPlainObject(tools) || Object.keys(tools).length === 0) {
    throw new TypeError(`${method}(tools) must be a non-empty plain object of tool name → { description?, parameters } or { type: 'custom', description?, format? }`);
  }
  const definitions: ToolDefinition[] = [];
  const schemas: Record<string, ZodType> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const at = `${method}(tools.${name})`;
    if (!TOOL_NAME.test(name)) throw new TypeError(`${method}(tools) has a tool named ${JSON.stringify(name)}; names match ${TOOL_NAME}`);
    if (!isPlainObject(tool)) throw new TypeError(`${at} must be a plain object { description?, parameters }`);
    const custom = tool['type'] === 'custom';
    if (tool['type'] !== undefined && !custom) throw new TypeError(`${at}.type must be 'custom' or absent (a function tool)`);
    const known = [...(custom ? ['type', 'description', 'format'] : ['description', 'parameters']), ...extraKeys];
    const unknown = Object.keys(tool).find((key) => !known.includes(key));
    if (unknown !== undefined) throw new TypeError(`${at} has no key '${unknown}'; known: ${known.join(', ')}`);
    if (tool.description !== undefined && typeof tool.description !== 'string') throw new TypeError(`${at}.description must be a string`);
    if (tool.type === 'custom') {
      if (tool.format !== undefined && !isPlainObject(tool.format)) throw new TypeError(`${at}.format must be a plain object (a grammar or { type: 'text' })`);
      if (tool.format !== undefined) assertJson(tool.format, `${at}.format`, 0);
      definitions.push({ name, type: 'custom', ...(tool.description !== undefined && { description: tool.description }), ...(tool.format !== undefined && { format: tool.format }) });
      continue;
    }
    const zod = isZod(tool.parameters) ? tool.parameters : undefined;
    if (zod !== undefined) schemas[name] = zod;
    definitions.push({
      name,
      ...(tool.description !== undefined && { description: tool.description }),
      parameters: zod !== undefined ? zodParameters(zod, `${at}.parameters`) : jsonParameters(tool.parameters, `${at}.parameters`),
    });
  }
  if (toolChoice !== undefined) assertToolChoice(toolChoice, tools, method);
  if (parallelToolCalls !== undefined && typeof parallelToolCalls !== 'boolean') {
    throw new TypeError(`${method}(parallelToolCalls) must be a boolean`);
  }
  return {
    tools: definitions,
    ...(toolChoice !== undefined && { toolChoice: typeof toolChoice === 'string' ? toolChoice : { name: toolChoice.name } }),
    ...(parallelToolCalls !== undefined && { parallelToolCalls }),
    ...(Object.keys(schemas).length > 0 && { toolSchemas: schemas }),
  };
}

/**
 * A tool conversation in the OpenAI wire shape: an assistant message may carry `tool_calls`
 * (`content` may then be null); a `tool` message must answer, by `tool_call_id`, a call of an
 * earlier assistant message.
 */
export function assertToolConversation(messages: readonly ChatMessage[], origin: string): void {
  const called = new Set<string>();
  messages.forEach((message, index) => {
    const at = `${origin}[${index}]`;
    const raw = message as unknown as Record<string, unknown>;
    if (raw['tool_calls'] !== undefined) {
      if (message.role !== 'assistant') throw new TypeError(`${at}.tool_calls is allowed on an assistant message only`);
      assertWireCalls(raw['tool_calls'], `${at}.tool_calls`).forEach((id) => called.add(id));
    }
    if (message.content === null && !(message.role === 'assistant' && raw['tool_calls'] !== undefined)) {
      throw new TypeError(`${at}.content may be null only on an assistant message with tool_calls`);
    }
    if (message.role === 'tool') {
      const id = raw['tool_call_id'];
      if (typeof id !== 'string' || id === '') throw new TypeError(`${at}.tool_call_id must be the id of the tool call it answers`);
      if (!called.has(id)) throw new TypeError(`${at}.tool_call_id '${id}' answers no tool call of an earlier assistant message`);
    } else if (raw['tool_call_id'] !== undefined) {
      throw new TypeError(`${at}.tool_call_id is allowed on a tool message only`);
    }
  });
}

function assertWireCalls(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new TypeError(`${at} must be a non-empty array of tool calls`);
  return value.map((call: unknown, index) => {
    const valid = isPlainObject(call) && typeof call['id'] === 'string' && call['id'] !== '' && (isFunctionCall(call) || isCustomCall(call));
    if (!valid) {
      throw new TypeError(
        `${at}[${index}] must be { id, type: 'function', function: { name, arguments: string } } or { id, type: 'custom', custom: { name, input: string } }`,
      );
    }
    return call['id'] as string;
  });
}

function isFunctionCall(call: Record<string, unknown>): boolean {
  const fn = call['function'];
  return call['type'] === 'function' && isPlainObject(fn) && typeof fn['name'] === 'string' && typeof fn['arguments'] === 'string';
}

function isCustomCall(call: Record<string, unknown>): boolean {
  const custom = call['custom'];
  return call['type'] === 'custom' && isPlainObject(custom) && typeof custom['name'] === 'string' && typeof custom['input'] === 'string';
}

function assertToolChoice(choice: unknown, tools: Readonly<Record<string, unknown>>, method: string): void {
  if (typeof choice === 'string' && CHOICES.has(choice)) return;
  if (isPlainObject(choice) && Object.keys(choice).length === 1 && typeof choice['name'] === 'string') {
    if (Object.hasOwn(tools, choice['name'])) return;
    throw new TypeError(`${method}(toolChoice) names '${choice['name']}', which is not one of ${method}(tools)`);
  }
  throw new TypeError(`${method}(toolChoice) must be 'auto', 'none', 'required' or { name }`);
}

function isZod(value: unknown): value is ZodType {
  return typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** The JSON Schema of a zod schema's input (what the model must send), by zod's own conversion. */
function zodParameters(schema: ZodType, at: string): Record<string, unknown> {
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  } catch (error) {
    throw new TypeError(`${at} cannot be expressed as JSON Schema: ${(error as Error).message}`);
  }
  if (json['type'] !== 'object') throw new TypeError(`${at} must be an object schema (z.object), got type ${String(json['type'])}`);
  delete json['$schema'];
  return json;
}

function jsonParameters(value: unknown, at: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new TypeError(`${at} must be a zod schema or a JSON Schema object`);
  if (value['type'] !== 'object') throw new TypeError(`${at} must be a JSON Schema whose type is 'object'`);
  assertJson(value, at, 0);
  return structuredClone(value);
}
