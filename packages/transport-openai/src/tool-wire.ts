/** Tool calling on the OpenAI wire: the request's `tools` / `tool_choice`, and the `tool_calls` of an answer. */
import type { ChatRequest, ToolCall, ToolCallDelta } from '@pgw/core';
import { invalidAnswer, type AnswerOrigin } from './error-translation.js';
import { isRecord } from './json.js';

/** Sets `tools`, `tool_choice` and `parallel_tool_calls` on a chat body when the request has tools. */
export function applyTools(body: Record<string, unknown>, request: ChatRequest): void {
  const { tools, toolChoice, parallelToolCalls } = request;
  if (tools === undefined) return;
  body['tools'] = tools.map((tool) => {
    const about = { name: tool.name, ...(tool.description !== undefined && { description: tool.description }) };
    return tool.type === 'custom'
      ? { type: 'custom', custom: { ...about, ...(tool.format !== undefined && { format: tool.format }) } }
      : { type: 'function', function: { ...about, parameters: tool.parameters } };
  });
  if (toolChoice !== undefined) {
    const named = typeof toolChoice === 'string' ? undefined : tools.find((tool) => tool.name === toolChoice.name);
    body['tool_choice'] =
      typeof toolChoice === 'string'
        ? toolChoice
        : named?.type === 'custom'
          ? { type: 'custom', custom: { name: toolChoice.name } }
          : { type: 'function', function: { name: toolChoice.name } };
  }
  if (parallelToolCalls !== undefined) body['parallel_tool_calls'] = parallelToolCalls;
}

/** `message.tool_calls` of a non-streamed answer: function and custom calls; undefined when there are none. */
export function parseToolCalls(value: unknown, origin: AnswerOrigin, body: string): ToolCall[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidAnswer(origin, 'choices[0].message.tool_calls is not an array', body);
  const calls = value.map((item: unknown, index) => {
    const call = toolCall(item);
    if (typeof call === 'string') throw invalidAnswer(origin, `choices[0].message.tool_calls[${index}] ${call}`, body);
    return call;
  });
  return calls.length === 0 ? undefined : calls;
}

/** One item of `tool_calls`, or what is wrong with it. */
function toolCall(item: unknown): ToolCall | string {
  if (!isRecord(item)) return 'is not an object';
  const { id, type } = item;
  if (typeof id !== 'string' || id === '') return 'has no id';
  if (type === 'custom') {
    const custom = isRecord(item['custom']) ? item['custom'] : {};
    if (typeof custom['name'] !== 'string') return 'is a custom call without custom.name';
    if (typeof custom['input'] !== 'string') return 'is a custom call whose custom.input is not a string';
    return { id, type: 'custom', name: custom['name'], arguments: custom['input'] };
  }
  // Some servers leave out `type`: a call with a `function` is a function call.
  if (type !== undefined && type !== 'function') return `has type '${String(type)}', which is neither function nor custom`;
  const fn = isRecord(item['function']) ? item['function'] : {};
  if (typeof fn['name'] !== 'string') return 'is a function call without function.name';
  const args = fn['arguments'] ?? '';
  // Some servers send the arguments as an object rather than JSON text: keep the text form.
  return { id, name: fn['name'], arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

/**
 * The tool-call fragments of one stream chunk's `delta.tool_calls` (malformed entries are skipped):
 * function calls, and custom calls (beyond the spec's chunk schema, but streamed by servers that
 * offer custom tools) whose `custom.name` / `custom.input` pieces travel like a function's.
 */
export function toolCallFragments(value: unknown, origin: AnswerOrigin, data: string): ToolCallDelta[] {
  if (!Array.isArray(value)) return [];
  const fragments: ToolCallDelta[] = [];
  value.forEach((item: unknown, position) => {
    if (!isRecord(item)) return;
    const type = item['type'];
    if (type !== undefined && type !== 'function' && type !== 'custom') {
      throw invalidAnswer(origin, `choices[0].delta.tool_calls[${position}] has type '${String(type)}', which is neither function nor custom`, data);
    }
    const custom = type === 'custom' || (type === undefined && isRecord(item['custom']));
    const part = custom ? item['custom'] : item['function'];
    const body = isRecord(part) ? part : {};
    const text = custom ? body['input'] : body['arguments'];
    const index = typeof item['index'] === 'number' ? item['index'] : position;
    const fragment: ToolCallDelta = { index };
    if (typeof item['id'] === 'string') fragment.id = item['id'];
    if (type === 'custom') fragment.type = 'custom';
    if (typeof body['name'] === 'string') fragment.name = body['name'];
    if (typeof text === 'string' && text !== '') fragment.arguments = text;
    fragments.push(fragment);
  });
  return fragments;
}

/**
 * Assembles streamed tool calls: fragments of one call share an index and may interleave with those
 * of others; the id and name arrive once (usually first), the arguments text in pieces that may split
 * anywhere — inside a string, between a backslash and what it escapes — so the pieces are only joined.
 */
export class ToolCallAssembly {
  private readonly calls = new Map<number, ToolCall>();

  add(fragment: ToolCallDelta): void {
    const call = this.calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
    if (fragment.id !== undefined) call.id = fragment.id;
    if (fragment.type !== undefined) call.type = fragment.type;
    // Some servers repeat the name on every fragment: it names the call, it is not a piece of it.
    if (fragment.name !== undefined && fragment.name !== '') call.name = fragment.name;
    if (fragment.arguments !== undefined) call.arguments += fragment.arguments;
    this.calls.set(fragment.index, call);
  }

  /** The calls in index order; undefined when none arrived. */
  result(): ToolCall[] | undefined {
    if (this.calls.size === 0) return undefined;
    // A server that sends no id still needs one: a tool message must answer the call by it.
    return [...this.calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  }
}
