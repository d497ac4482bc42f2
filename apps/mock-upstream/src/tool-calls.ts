/** The `tool_calls` step: an answer asking for tool calls, whole or as interleaved stream fragments. */
import type { ScriptToolCall, Step } from './types.js';

export type ToolCallsStep = Extract<Step, { kind: 'tool_calls' }>;

export type WireToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

let toolCallSeq = 0;

/** The step's calls in wire form, each with an id (scripted, or `call_mock_N`). */
export function wireToolCalls(step: ToolCallsStep): WireToolCall[] {
  return step.calls.map((call: ScriptToolCall): WireToolCall => {
    const id = call.id ?? `call_mock_${++toolCallSeq}`;
    const text = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    return call.custom ? { id, type: 'custom', custom: { name: call.name, input: text } } : { id, type: 'function', function: { name: call.name, arguments: text } };
  });
}

/** The text a call carries: a function call's arguments, a custom call's input. */
export function callText(call: WireToolCall): string {
  return call.type === 'custom' ? call.custom.input : call.function.arguments;
}

/**
 * The `delta.tool_calls` payloads of a stream: per call one fragment with index, id, type and name,
 * then its arguments in `chunkChars` pieces; `interleave` takes the calls' fragments round-robin.
 */
export function toolCallFragments(step: ToolCallsStep, calls: readonly WireToolCall[]): object[] {
  const size = step.chunkChars ?? 7;
  const perCall = calls.map((call, index) => {
    // The spec's stream chunk has function calls only: a custom call goes whole, as a JSON answer has it.
    if (call.type === 'custom') return [{ index, ...call }];
    const text = call.function.arguments;
    const pieces: object[] = [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }];
    for (let at = 0; at < text.length; at += size) pieces.push({ index, function: { arguments: text.slice(at, at + size) } });
    return pieces;
  });
  if (!step.interleave) return perCall.flat();
  const rounds = Math.max(...perCall.map((pieces) => pieces.length));
  return Array.from({ length: rounds }, (_, round) => perCall.flatMap((pieces) => (round < pieces.length ? [pieces[round]!] : []))).flat();
}
