import { toWireCall, type ChatMessage, type ParsedToolCall, type ToolCall, type ToolDefinition } from '@pgw/core';
import type { ZodType } from 'zod';

/** The zod schemas of the tools that were given one, by tool name (the others are plain JSON Schema). */
export type ToolSchemas = Readonly<Record<string, ZodType>>;

export type ToolCallsCheck =
  | { readonly ok: true; readonly calls: ParsedToolCall[] }
  | { readonly ok: false; readonly issues: string[]; readonly feedback: ChatMessage[] };

/**
 * Parses each call's raw `arguments` (an empty text is `{}`: models send it for a tool without
 * parameters) and validates it with the tool's zod schema when it has one. A call of a tool that
 * was not offered, arguments that are not JSON or fail the schema are issues; the feedback is the
 * conversation a re-ask appends: the assistant's calls, then one tool message per call saying what
 * was wrong with it (or that it was not run because a sibling was wrong).
 */
export function checkToolCalls(
  calls: readonly ToolCall[],
  content: string,
  tools: readonly ToolDefinition[] | undefined,
  schemas: ToolSchemas | undefined,
): ToolCallsCheck {
  const offered = new Map((tools ?? []).map((tool) => [tool.name, tool.type ?? 'function']));
  const parsed: ParsedToolCall[] = [];
  const problems = new Map<string, string>();
  for (const call of calls) {
    const verdict = checkOne(call, offered, schemas?.[call.name]);
    if (verdict.ok) parsed.push({ ...call, input: verdict.input });
    else problems.set(call.id, `tool call ${call.id} (${call.name}): ${verdict.issue}`);
  }
  if (problems.size === 0) return { ok: true, calls: parsed };
  const feedback: ChatMessage[] = [
    { role: 'assistant', content: content === '' ? null : content, tool_calls: calls.map(toWireCall) },
    ...calls.map((call): ChatMessage => {
      const problem = problems.get(call.id);
      return {
        role: 'tool',
        tool_call_id: call.id,
        content: problem
          ? `Not run: the arguments could not be used: ${problem}. Call the tool again with corrected arguments.`
          : 'Not run: another call of this turn had unusable arguments. Call it again if you still need it.',
      };
    }),
  ];
  return { ok: false, issues: [...problems.values()], feedback };
}

/**
 * Calls with their input parsed where it parses (undefined where not): until the ladder judges them, or when no tools were offered.
 * A custom call's input is its raw text.
 */
export function leniently(calls: readonly ToolCall[]): ParsedToolCall[] {
  return calls.map((call) => {
    const parsed = parseArguments(call);
    return { ...call, input: parsed.ok ? parsed.input : undefined };
  });
}

function parseArguments({ type, arguments: text }: ToolCall): { ok: true; input: unknown } | { ok: false; issue: string } {
  if (type === 'custom') return { ok: true, input: text };
  try {
    return { ok: true, input: text.trim() === '' ? {} : JSON.parse(text) };
  } catch (error) {
    return { ok: false, issue: `arguments are not valid JSON (${(error as Error).message})` };
  }
}

function checkOne(call: ToolCall, offered: ReadonlyMap<string, string>, schema: ZodType | undefined): { ok: true; input: unknown } | { ok: false; issue: string } {
  // A call is of the kind its tool was offered as: a custom call of a function tool (or the reverse) is not that tool's.
  const kind = call.type ?? 'function';
  if (offered.get(call.name) !== kind) return { ok: false, issue: `no ${kind === 'custom' ? 'custom ' : ''}tool named '${call.name}' was offered` };
  const parsed = parseArguments(call);
  if (!parsed.ok || schema === undefined) return parsed;
  const result = schema.safeParse(parsed.input);
  if (result.success) return { ok: true, input: result.data };
  const issues = result.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`);
  return { ok: false, issue: `arguments do not match the tool's schema (${issues.join('; ')})` };
}
