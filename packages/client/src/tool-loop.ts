/**
 * `runTools`: a governed multi-step tool loop. Each step is one governed chat call; the tool calls
 * of a step run in parallel under the loop's signal; their results go back as tool messages; the
 * loop ends on an answer without tool calls, at `maxSteps`, or on a call of a tool without
 * `execute`. The whole loop — steps and tool executions — shares ONE call deadline, and every
 * step's telemetry rows carry the loop's `logicalCallId`.
 */
import {
  abortError,
  CallDeadlineExceeded,
  ToolExecutionError,
  type ChatMessage,
  type LLMResponse,
  type ParsedToolCall,
  type Usage,
  type UsageSource,
} from '@pgw/core';
import { combineSignals, withCallDeadline } from '@pgw/core/internal';
import { toWireCall } from '@pgw/core';
import type { ChatTool } from './tool-options.js';

/** What a tool's `execute` gets besides its input. */
export interface ToolExecutionContext {
  /** Aborts on the caller's abort, the loop's deadline, or (onToolError 'throw') a sibling's failure. */
  signal: AbortSignal;
  toolCallId: string;
}

/**
 * A tool of `runTools` with what runs it (a custom tool's `execute` gets the call's text); without
 * `execute`, a call of it ends the loop and is left to the caller.
 */
export type RunnableTool = ChatTool & {
  // `any`: the input's type is the tool's schema, which the record of tools cannot carry per entry.
  execute?: (input: any, context: ToolExecutionContext) => unknown;
};

export interface ToolResult {
  toolCallId: string;
  name: string;
  input: unknown;
  /** What `execute` returned (absent when it threw). */
  output?: unknown;
  /** The message of what `execute` threw. */
  error?: string;
  /** The tool message's content sent back to the model. */
  content: string;
}

export interface ToolStep {
  response: LLMResponse;
  /** Empty for the last step. */
  toolResults: ToolResult[];
}

export interface ToolRunResult {
  /** The last step's response: the answer, or (finishedBy ≠ 'answer') the calls that were not run. */
  response: LLMResponse;
  steps: ToolStep[];
  /** Summed over the steps; `usageSource` is the weakest of theirs. */
  usage: Usage;
  /** Summed over the steps; undefined when a step's cost is unknown. */
  costUsd?: number;
  /** The id every step's telemetry rows share. */
  logicalCallId: string;
  finishedBy: 'answer' | 'max_steps' | 'no_execute';
}

export interface ToolLoopPlan {
  tools: Readonly<Record<string, RunnableTool>>;
  maxSteps: number;
  onToolError: 'report' | 'throw';
  logicalCallId: string;
  scope: string;
  deadlineMs?: number;
  signal?: AbortSignal;
}

/** One governed step: the conversation so far, under the time left of the loop's deadline. */
export type StepCall = (messages: ChatMessage[], deadlineMs: number | undefined) => Promise<LLMResponse>;

export function runToolLoop(messages: readonly ChatMessage[], plan: ToolLoopPlan, step: StepCall): Promise<ToolRunResult> {
  const { deadlineMs, scope } = plan;
  const started = performance.now();
  const timeLeft = (): number | undefined => {
    if (deadlineMs === undefined) return undefined;
    const left = deadlineMs - (performance.now() - started);
    if (left <= 0) throw new CallDeadlineExceeded({ scope, deadlineMs });
    return left;
  };
  return withCallDeadline(
    async (signal) => {
      const steps: ToolStep[] = [];
      let conversation = [...messages];
      for (;;) {
        const response = await loopStep(() => step(conversation, timeLeft()), plan);
        const calls = response.toolCalls ?? [];
        const finishedBy =
          calls.length === 0 ? 'answer' : steps.length + 1 >= plan.maxSteps ? 'max_steps' : calls.some((c) => !plan.tools[c.name]?.execute) ? 'no_execute' : undefined;
        if (finishedBy !== undefined) {
          steps.push({ response, toolResults: [] });
          return summary(response, steps, plan.logicalCallId, finishedBy);
        }
        const toolResults = await executeAll(calls, plan, signal);
        steps.push({ response, toolResults });
        conversation = [
          ...conversation,
          { role: 'assistant', content: response.content === '' ? null : response.content, tool_calls: calls.map(toWireCall) },
          ...toolResults.map((result): ChatMessage => ({ role: 'tool', tool_call_id: result.toolCallId, content: result.content })),
        ];
      }
    },
    { ...(deadlineMs !== undefined && { deadlineMs }), scope, ...(plan.signal && { signal: plan.signal }) },
  );
}

/** A step that ran out of the loop's time reports the loop's deadline, not the slice it was given. */
async function loopStep(run: () => Promise<LLMResponse>, plan: ToolLoopPlan): Promise<LLMResponse> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CallDeadlineExceeded && plan.deadlineMs !== undefined && error.deadlineMs !== plan.deadlineMs) {
      throw new CallDeadlineExceeded({ scope: plan.scope, deadlineMs: plan.deadlineMs, cause: error });
    }
    throw error;
  }
}

/**
 * Runs a step's calls in parallel and waits until every one settled — so nothing keeps running
 * after the loop returns. The loop's abort (caller, deadline) aborts them all and ends the loop;
 * with onToolError 'throw', the first failure aborts its siblings and ends the loop too.
 */
async function executeAll(calls: readonly ParsedToolCall[], plan: ToolLoopPlan, loopSignal: AbortSignal | undefined): Promise<ToolResult[]> {
  const siblings = new AbortController();
  const combined = combineSignals([loopSignal, siblings.signal]);
  let failure: ToolExecutionError | undefined;
  try {
    const results = await Promise.all(
      calls.map(async (call): Promise<ToolResult> => {
        const base = { toolCallId: call.id, name: call.name, input: call.input };
        try {
          const output: unknown = await plan.tools[call.name]!.execute!(call.input, { signal: combined.signal, toolCallId: call.id });
          return { ...base, output, content: outputText(output) };
        } catch (error) {
          if (plan.onToolError === 'throw' && failure === undefined && !combined.signal.aborted) {
            failure = new ToolExecutionError({ toolName: call.name, toolCallId: call.id, cause: error });
            siblings.abort(failure);
          }
          const message = error instanceof Error ? error.message : String(error);
          return { ...base, error: message, content: `Error: ${message}` };
        }
      }),
    );
    if (loopSignal?.aborted) throw abortError(loopSignal);
    if (failure !== undefined) throw failure;
    return results;
  } finally {
    combined.dispose();
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output) ?? '';
}

const USAGE_STRENGTH: readonly UsageSource[] = ['unavailable', 'estimated', 'measured'];

function summary(response: LLMResponse, steps: ToolStep[], logicalCallId: string, finishedBy: ToolRunResult['finishedBy']): ToolRunResult {
  const usages = steps.map((s) => s.response.usage);
  const reasoning = usages.filter((u) => u.reasoningTokens !== undefined);
  const usage: Usage = {
    promptTokens: usages.reduce((sum, u) => sum + u.promptTokens, 0),
    completionTokens: usages.reduce((sum, u) => sum + u.completionTokens, 0),
    ...(reasoning.length > 0 && { reasoningTokens: reasoning.reduce((sum, u) => sum + u.reasoningTokens!, 0) }),
    usageSource: USAGE_STRENGTH[Math.min(...usages.map((u) => USAGE_STRENGTH.indexOf(u.usageSource)))]!,
  };
  const costs = steps.map((s) => s.response.costUsd);
  const costUsd = costs.every((c) => c !== undefined) ? costs.reduce((sum: number, c) => sum + c!, 0) : undefined;
  return { response, steps, usage, ...(costUsd !== undefined && { costUsd }), logicalCallId, finishedBy };
}
