/**
 * What every tool call through the door leaves behind: a telemetry row (`operation: "mcp"`, through
 * the store `PGW_TELEMETRY_BACKEND` names) and a count in `/metrics`. Arguments and results are kept
 * only with `PGW_MCP__LOG_ARGUMENTS=on` (they may hold anything the tools see).
 */
import { randomUUID } from 'node:crypto';
import type { Priority, TelemetryRecorder } from '@pgw/core';
import type { ServerMetrics } from '../operations/metrics.js';
import { SERVER_SCOPE } from './governance.js';

/** How a tool call ended: answered, answered with the tool's own error (`isError`), failed, or cancelled by its caller. */
export type ToolOutcome = 'ok' | 'tool_error' | 'failed' | 'cancelled';

export interface ToolCallRecord {
  server: string;
  tool: string;
  tenantId: string;
  priority: Priority;
  requestId: string | undefined;
  startedAt: number;
  attempts: number;
  outcome: ToolOutcome;
  error?: unknown;
  arguments?: unknown;
  result?: unknown;
}

const MAX_TEXT = 65_536;

export class McpAudit {
  readonly #recorder: TelemetryRecorder | undefined;
  readonly #metrics: ServerMetrics;
  readonly #logArguments: boolean;

  constructor(recorder: TelemetryRecorder | undefined, metrics: ServerMetrics, logArguments: boolean) {
    this.#recorder = recorder;
    this.#metrics = metrics;
    this.#logArguments = logArguments;
  }

  toolCall(call: ToolCallRecord): void {
    this.#metrics.mcpToolCall(call.server, call.tool, call.outcome);
    if (this.#recorder === undefined) return;
    const id = randomUUID();
    const latencyMs = performance.now() - call.startedAt;
    const failed = call.outcome === 'failed' || call.outcome === 'cancelled';
    this.#recorder.record({
      ts: Date.now(),
      scope: SERVER_SCOPE,
      operation: 'mcp',
      eventKind: failed ? 'terminal_failure' : 'attempt',
      callId: id,
      logicalCallId: id,
      ...(call.tenantId !== '' && { tenantId: call.tenantId }),
      priority: call.priority,
      meta: { server: call.server, tool: call.tool, outcome: call.outcome, ...(call.requestId !== undefined && { requestId: call.requestId }) },
      source: call.server,
      model: call.tool,
      status: call.outcome === 'cancelled' ? 'cancelled' : call.outcome === 'failed' ? 'error' : 'ok',
      ...(call.error !== undefined && { error: messageOf(call.error), errorType: call.error instanceof Error ? call.error.name : 'Error' }),
      latencyMs,
      totalLatencyMs: latencyMs,
      attempts: call.attempts,
      ...(this.#logArguments && call.arguments !== undefined && { requestText: clipped(call.arguments) }),
      ...(this.#logArguments && call.result !== undefined && { responseText: clipped(call.result) }),
    });
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 1000);
const clipped = (value: unknown) => JSON.stringify(value).slice(0, MAX_TEXT);
