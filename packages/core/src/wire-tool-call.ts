import type { ToolCall, WireToolCall } from './types.js';

/** The name and the raw input text of a wire tool call: a function call's arguments, a custom call's input. */
export function wireCallParts(call: WireToolCall): { name: string; input: string } {
  return call.type === 'custom' ? { name: call.custom.name, input: call.custom.input } : { name: call.function.name, input: call.function.arguments };
}

/** A call of an answer as the assistant message of a tool conversation carries it: a function call or a custom one. */
export function toWireCall(call: ToolCall): WireToolCall {
  return call.type === 'custom'
    ? { id: call.id, type: 'custom', custom: { name: call.name, input: call.arguments } }
    : { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}
