import { timeOrderedId } from './time-ordered-id.js';
import {
  costUsd,
  NoopRecorder,
  PolyGatewayError,
  summarizeBody,
  type CallStats,
  type Clock,
  type LLMResponse,
  type PricingTable,
  type TelemetryRecorder,
  type TelemetryRow,
} from '@pgw/core';
import type { Middleware } from './compose.js';
import { callStats, claimTerminal, type CallContext } from './context.js';
import type { AttemptReport } from './operation.js';
import { SafeRecorder } from './safe-recorder.js';
import type { WarnOnce } from './warn-once.js';

export interface TelemetryEmitterOptions {
  recorder?: TelemetryRecorder;
  /** Request/response text is cut to this many characters; 0 stores none. */
  textCap: number;
  pricing?: PricingTable;
  now: Clock;
  warnings: WarnOnce;
}

/** Builds the `llm_calls` rows of docs/architecture.md#telemetry: one per attempt, one per cache hit, one terminal row per failed call. */
export class TelemetryEmitter {
  /**
   * Whether rows go anywhere. Without a recorder (or with the NoopRecorder) no row is built at all:
   * no text capping, no pricing, no copy of the call's dimensions. Call stats live in the call's
   * ledger, not in rows, so they stay exact either way.
   */
  readonly recording: boolean;
  private readonly recorder: SafeRecorder;

  constructor(private readonly options: TelemetryEmitterOptions) {
    this.recording = options.recorder !== undefined && !(options.recorder instanceof NoopRecorder);
    this.recorder = new SafeRecorder(options.recorder, options.warnings);
  }

  /** Rows a failing recorder refused (it also keeps its own queue counters). */
  get droppedRows(): number {
    return this.recorder.droppedRows;
  }

  /** One row per attempt, cancelled ones included (`error='cancelled'`). */
  readonly attempt = (ctx: CallContext, report: AttemptReport): void => {
    if (!this.recording) return;
    const { description, usage } = report;
    // Filled in place rather than spread together (here and below): a row literal assembled from
    // several spreads cost tens of microseconds, and rows are built for every attempt.
    const row = this.base(ctx, 'attempt', report.callId);
    row.source = report.source.name;
    row.model = description.model ?? report.source.model.modelId;
    row.status = report.status;
    if (report.status !== 'ok') this.setError(row, report.error, report.status === 'cancelled');
    if (usage) {
      row.promptTokens = usage.promptTokens;
      row.completionTokens = usage.completionTokens;
      row.reasoningTokens = usage.reasoningTokens;
      row.usageSource = usage.usageSource;
      row.costUsd = costUsd(usage, row.model, this.options.pricing);
    }
    row.latencyMs = report.latencyMs;
    row.ttftMs = description.ttftMs;
    row.thinkingObservation = description.thinkingObservation;
    row.requestText = this.cap(description.requestText);
    row.responseText = this.cap(description.responseText);
    this.recorder.record(row);
  };

  cacheHit(ctx: CallContext, response: LLMResponse): void {
    if (!this.recording) return;
    const row = this.base(ctx, 'cache_hit', timeOrderedId());
    row.source = response.source;
    row.model = response.model;
    row.costUsd = 0;
    row.thinkingObservation = response.thinkingObservation;
    row.responseText = this.cap(response.content);
    this.recorder.record(row);
  }

  /** Exactly one terminal row per failed logical call: claimed once in the call's ledger. */
  terminalFailure(ctx: CallContext, error: unknown): void {
    if (!claimTerminal(ctx) || !this.recording) return;
    // A caller's abort is a cancellation; a library verdict (deadline, unavailable, …) is an error.
    const cancelled = ctx.signal.aborted && !(error instanceof PolyGatewayError);
    const row = this.base(ctx, 'terminal_failure', ctx.logicalCallId);
    row.source = ctx.ledger.sourcesTried.at(-1);
    row.status = cancelled ? 'cancelled' : 'error';
    this.setError(row, error, cancelled);
    this.recorder.record(row);
  }

  private base(ctx: CallContext, eventKind: TelemetryRow['eventKind'], callId: string): TelemetryRow {
    const stats: CallStats = callStats(ctx, this.options.now);
    return {
      ts: this.options.now(),
      scope: ctx.scope,
      operation: ctx.operation,
      eventKind,
      callId,
      logicalCallId: ctx.logicalCallId,
      sessionId: ctx.sessionId,
      parentCallId: ctx.parentCallId,
      tenantId: ctx.tenantId,
      meta: ctx.meta,
      status: 'ok',
      attempts: stats.attempts,
      totalLatencyMs: stats.totalLatencyMs,
      reasoningEffort: ctx.reasoningEffort,
    };
  }

  private setError(row: TelemetryRow, error: unknown, cancelled: boolean): void {
    row.error = cancelled ? 'cancelled' : summarizeBody(error instanceof Error ? error.message : String(error));
    row.errorType = error instanceof Error ? error.name : typeof error;
  }

  private cap(text: string | undefined): string | undefined {
    if (text === undefined || this.options.textCap <= 0) return undefined;
    return text.length > this.options.textCap ? text.slice(0, this.options.textCap) : text;
  }
}

/**
 * The outermost layer: on success stamps the call's stats on the response (`finalize`); on failure
 * writes the terminal row (once, however many emitters are nested) and rethrows unchanged.
 */
export function telemetryMiddleware<Req, Res>(
  emitter: TelemetryEmitter,
  now: Clock,
  finalize: (response: Res, stats: CallStats) => Res = (response) => response,
): Middleware<Req, Res> {
  return async (call, next) => {
    try {
      return finalize(await next(call), callStats(call.ctx, now));
    } catch (error) {
      emitter.terminalFailure(call.ctx, error);
      throw error;
    }
  };
}
