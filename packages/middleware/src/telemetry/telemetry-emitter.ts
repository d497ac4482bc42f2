import { timeOrderedId } from '../time-ordered-id.js';
import {
  NoopRecorder,
  summarizeBody,
  type AttemptEndEvent,
  type CacheHitEvent,
  type CallEndEvent,
  type CallInfo,
  type Clock,
  type GatewaySubscriber,
  type PricingTable,
  type QuotaWaitEndEvent,
  type TelemetryRecorder,
  type TelemetryRow,
} from '@pgw/core';
import { cacheSavingUsd, costUsd } from '@pgw/core/internal';
import { SafeRecorder } from './safe-recorder.js';
import type { WarnOnce } from '../warn-once.js';

export interface TelemetryEmitterOptions {
  recorder?: TelemetryRecorder;
  /** Request/response text is cut to this many characters; 0 stores none. */
  textCap: number;
  pricing?: PricingTable;
  now: Clock;
  warnings: WarnOnce;
}

/**
 * Builds the `llm_calls` rows: one per attempt, one per cache hit, one terminal row per failed call.
 * It is one subscriber of the pipeline's events, attached only while `recording`.
 */
export class TelemetryEmitter implements GatewaySubscriber {
  readonly name = 'telemetry rows';
  /**
   * Whether rows go anywhere. Without a recorder (or with the NoopRecorder) no row is built at all:
   * no text capping, no pricing, no copy of the call's dimensions. Call stats live in the call's
   * ledger, not in rows, so they stay exact either way.
   */
  readonly recording: boolean;
  private readonly recorder: SafeRecorder;
  /** What each call in flight that waited for room waited so far (calls that never wait have no entry). */
  private readonly waitedMs = new Map<string, number>();

  constructor(private readonly options: TelemetryEmitterOptions) {
    this.recording = options.recorder !== undefined && !(options.recorder instanceof NoopRecorder);
    this.recorder = new SafeRecorder(options.recorder, options.warnings);
  }

  /** Rows a failing recorder refused (it also keeps its own queue counters). */
  get droppedRows(): number {
    return this.recorder.droppedRows;
  }

  readonly onQuotaWaitEnd = (event: QuotaWaitEndEvent): void => {
    const id = event.call.logicalCallId;
    this.waitedMs.set(id, (this.waitedMs.get(id) ?? 0) + event.waitedMs);
  };

  /** One row per attempt, cancelled ones included (`error='cancelled'`). */
  readonly onAttemptEnd = (event: AttemptEndEvent): void => {
    const { content, usage } = event;
    // Filled in place rather than spread together (here and below): a row literal assembled from
    // several spreads cost tens of microseconds, and rows are built for every attempt.
    const row = this.base(event.call, 'attempt', event.callId, event.attempt);
    row.source = event.source;
    row.model = content.model ?? event.model.modelId;
    row.status = event.status;
    if (event.status !== 'ok') this.setError(row, event.error, event.status === 'cancelled');
    if (usage) {
      row.promptTokens = usage.promptTokens;
      row.completionTokens = usage.completionTokens;
      row.reasoningTokens = usage.reasoningTokens;
      row.usageSource = usage.usageSource;
      row.cachedPromptTokens = usage.cachedPromptTokens;
      row.cacheWritePromptTokens = usage.cacheWritePromptTokens;
      row.costUsd = costUsd(usage, row.model, this.options.pricing, event.sourcePrice);
      if (usage.cachedPromptTokens !== undefined) {
        row.cacheSavingUsd = cacheSavingUsd(usage, row.model, this.options.pricing, event.sourcePrice);
      }
    }
    row.latencyMs = event.latencyMs;
    row.ttftMs = content.ttftMs;
    row.thinkingObservation = content.thinkingObservation;
    row.requestText = this.cap(content.requestText);
    row.responseText = this.cap(content.responseText);
    if (content.toolCalls) row.toolCalls = content.toolCalls;
    this.recorder.record(row);
  };

  readonly onCacheHit = (event: CacheHitEvent): void => {
    const row = this.base(event.call, 'cache_hit', timeOrderedId(), 0);
    row.source = event.source;
    row.model = event.model;
    row.costUsd = 0;
    row.thinkingObservation = event.thinkingObservation;
    row.responseText = this.cap(event.content);
    if (event.toolCalls) row.toolCalls = event.toolCalls;
    this.recorder.record(row);
  };

  /** Exactly one terminal row per failed logical call (the call-events layer ends a call once). */
  readonly onCallEnd = (event: CallEndEvent): void => {
    const waitMs = this.waitedMs.get(event.call.logicalCallId);
    if (waitMs !== undefined) this.waitedMs.delete(event.call.logicalCallId);
    if (event.status === 'ok') return;
    const row = this.base(event.call, 'terminal_failure', event.call.logicalCallId, event.attempts);
    row.waitMs = waitMs ?? 0;
    row.source = event.sourcesTried.at(-1);
    row.status = event.status;
    this.setError(row, event.error, event.status === 'cancelled');
    this.recorder.record(row);
  };

  private base(call: CallInfo, eventKind: TelemetryRow['eventKind'], callId: string, attempts: number): TelemetryRow {
    const ts = this.options.now();
    return {
      ts,
      scope: call.scope,
      operation: call.operation,
      eventKind,
      callId,
      logicalCallId: call.logicalCallId,
      sessionId: call.sessionId,
      parentCallId: call.parentCallId,
      tenantId: call.tenantId,
      priority: call.priority ?? 'interactive',
      meta: call.meta,
      status: 'ok',
      attempts,
      totalLatencyMs: Math.max(0, ts - call.startedAt),
      waitMs: this.waitedMs.get(call.logicalCallId) ?? 0,
      reasoningEffort: call.reasoningEffort,
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
