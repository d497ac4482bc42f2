import { randomUUID } from 'node:crypto';
import {
  costUsd,
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

/** Builds the `llm_calls` rows of SPEC §12: one per attempt, one per cache hit, one terminal row per failed call. */
export class TelemetryEmitter {
  private readonly recorder: SafeRecorder;

  constructor(private readonly options: TelemetryEmitterOptions) {
    this.recorder = new SafeRecorder(options.recorder, options.warnings);
  }

  /** Rows a failing recorder refused (it also keeps its own queue counters). */
  get droppedRows(): number {
    return this.recorder.droppedRows;
  }

  /** One row per attempt, cancelled ones included (`error='cancelled'`). */
  readonly attempt = (ctx: CallContext, report: AttemptReport): void => {
    const { description, usage } = report;
    const model = description.model ?? report.source.model;
    this.recorder.record({
      ...this.base(ctx, 'attempt', report.callId),
      source: report.source.name,
      model,
      status: report.status,
      ...(report.status === 'ok' ? {} : this.errorFields(report.error, report.status === 'cancelled')),
      ...(usage && {
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        reasoningTokens: usage.reasoningTokens,
        usageSource: usage.usageSource,
        costUsd: costUsd(usage, model, this.options.pricing),
      }),
      latencyMs: report.latencyMs,
      ttftMs: description.ttftMs,
      thinkingObservation: description.thinkingObservation,
      requestText: this.cap(description.requestText),
      responseText: this.cap(description.responseText),
    });
  };

  cacheHit(ctx: CallContext, response: LLMResponse): void {
    this.recorder.record({
      ...this.base(ctx, 'cache_hit', randomUUID()),
      source: response.source,
      model: response.model,
      status: 'ok',
      costUsd: 0,
      thinkingObservation: response.thinkingObservation,
      responseText: this.cap(response.content),
    });
  }

  /** Exactly one terminal row per failed logical call: claimed once in the call's ledger. */
  terminalFailure(ctx: CallContext, error: unknown): void {
    if (!claimTerminal(ctx)) return;
    // A caller's abort is a cancellation; a library verdict (deadline, unavailable, …) is an error.
    const cancelled = ctx.signal.aborted && !(error instanceof PolyGatewayError);
    this.recorder.record({
      ...this.base(ctx, 'terminal_failure', ctx.logicalCallId),
      source: ctx.ledger.sourcesTried.at(-1),
      status: cancelled ? 'cancelled' : 'error',
      ...this.errorFields(error, cancelled),
    });
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

  private errorFields(error: unknown, cancelled: boolean): Pick<TelemetryRow, 'error' | 'errorType'> {
    const errorType = error instanceof Error ? error.name : typeof error;
    if (cancelled) return { error: 'cancelled', errorType };
    return { error: summarizeBody(error instanceof Error ? error.message : String(error)), errorType };
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
