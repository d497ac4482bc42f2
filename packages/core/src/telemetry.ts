/** The `llm_calls` row of docs/architecture.md#telemetry: one per attempt, per cache hit, and one terminal row per failed logical call. */
import type { Priority } from './tenants.js';
import type { Effort, Operation, ThinkingObservation, UsageSource } from './types.js';

export type TelemetryEventKind = 'attempt' | 'cache_hit' | 'terminal_failure';
export type TelemetryStatus = 'ok' | 'error' | 'cancelled';

export interface TelemetryRow {
  /** Epoch milliseconds. */
  ts: number;
  scope: string;
  operation: Operation;
  eventKind: TelemetryEventKind;
  callId: string;
  logicalCallId: string;
  sessionId?: string;
  parentCallId?: string;
  tenantId?: string;
  /** The call's priority class (absent on rows written before tenants had classes). */
  priority?: Priority;
  meta?: Record<string, unknown>;
  source?: string;
  model?: string;
  status: TelemetryStatus;
  /** Folded error text (`error='cancelled'` for a cancelled attempt). */
  error?: string;
  /** Class name of the error. */
  errorType?: string;
  promptTokens?: number;
  completionTokens?: number;
  reasoningTokens?: number;
  /** The part of `promptTokens` served from the upstream's prompt cache. */
  cachedPromptTokens?: number;
  /** The part of `promptTokens` written to the upstream's prompt cache (billed at the cache-write price). */
  cacheWritePromptTokens?: number;
  usageSource?: UsageSource;
  costUsd?: number;
  /** What the prompt cache saved against the full input price (`cacheSavingUsd`). */
  cacheSavingUsd?: number;
  latencyMs?: number;
  ttftMs?: number;
  attempts?: number;
  totalLatencyMs?: number;
  /** How long the call waited for admission (quotas, the scope's line) before this attempt. */
  waitMs?: number;
  reasoningEffort?: Effort;
  thinkingObservation?: ThinkingObservation;
  requestText?: string;
  responseText?: string;
  /** How many tool calls the answer carried (chat; absent when it carried none or failed). */
  toolCalls?: number;
}

/** Column names of `llm_calls`, in table order, with the row field each one stores. */
export const TELEMETRY_COLUMNS = [
  ['ts', 'ts'],
  ['scope', 'scope'],
  ['operation', 'operation'],
  ['event_kind', 'eventKind'],
  ['call_id', 'callId'],
  ['logical_call_id', 'logicalCallId'],
  ['session_id', 'sessionId'],
  ['parent_call_id', 'parentCallId'],
  ['tenant_id', 'tenantId'],
  ['meta', 'meta'],
  ['source', 'source'],
  ['model', 'model'],
  ['status', 'status'],
  ['error', 'error'],
  ['error_type', 'errorType'],
  ['prompt_tokens', 'promptTokens'],
  ['completion_tokens', 'completionTokens'],
  ['reasoning_tokens', 'reasoningTokens'],
  ['usage_source', 'usageSource'],
  ['cost_usd', 'costUsd'],
  ['latency_ms', 'latencyMs'],
  ['ttft_ms', 'ttftMs'],
  ['attempts', 'attempts'],
  ['total_latency_ms', 'totalLatencyMs'],
  ['reasoning_effort', 'reasoningEffort'],
  ['thinking_observation', 'thinkingObservation'],
  ['request_text', 'requestText'],
  ['response_text', 'responseText'],
  // Added by schema versions 2, 3, 4 and 5, hence last, in that order.
  ['cached_prompt_tokens', 'cachedPromptTokens'],
  ['cache_saving_usd', 'cacheSavingUsd'],
  ['tool_calls', 'toolCalls'],
  ['cache_write_prompt_tokens', 'cacheWritePromptTokens'],
  ['priority', 'priority'],
  ['wait_ms', 'waitMs'],
] as const satisfies ReadonlyArray<readonly [string, keyof TelemetryRow]>;
