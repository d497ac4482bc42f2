import type { WireToolCall } from './types.js';

/** The name and the raw input text of a wire tool call: a function call's arguments, a custom call's input. */
export function wireCallParts(call: WireToolCall): { name: string; input: string } {
  return call.type === 'custom' ? { name: call.custom.name, input: call.custom.input } : { name: call.function.name, input: call.function.arguments };
}
