import {
  context,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type MeterProvider,
  type Span,
  type TracerProvider,
  type Tracer,
  type UpDownCounter,
} from '@opentelemetry/api';
import type {
  AttemptEndEvent,
  AttemptStartEvent,
  BreakerState,
  BreakerStateEvent,
  BudgetRefusedEvent,
  CacheHitEvent,
  CallEndEvent,
  CallStartEvent,
  FirstTokenEvent,
  GatewaySubscriber,
  ModelInfo,
  QuotaWaitEndEvent,
  QuotaWaitStartEvent,
  RetryScheduledEvent,
} from '@pgw/core';
import { ATTR, BREAKER_STATE_VALUE, DURATION_BUCKETS_S, errorType, METRIC, OPERATION_NAME, TOKEN_BUCKETS } from './attributes.js';

export const INSTRUMENTATION_NAME = '@pgw/telemetry-otel';
const INSTRUMENTATION_VERSION = '0.1.0';

export interface OtelSubscriberOptions {
  /** Default: the globally registered provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Default: the globally registered provider (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /** Record request and response text on attempt spans. Default false: content may be personal data. */
  captureContent?: boolean;
}

/** What the subscriber keeps of one logical call while it runs. */
interface CallTrace {
  readonly span: Span;
  readonly context: Context;
  readonly operation: string;
  readonly attempts: Map<string, Span>;
  requestModel?: string;
  model?: ModelInfo;
  queueWaitMs: number;
  cached: boolean;
}

/**
 * Traces and metrics of PolyGateway calls, following the OpenTelemetry GenAI semantic conventions:
 * one CLIENT span per logical call named `{gen_ai.operation.name} {gen_ai.request.model}`, an
 * INTERNAL child span per attempt, and the GenAI client histograms plus pgw counters and gauges.
 */
export function otelSubscriber(options: OtelSubscriberOptions = {}): GatewaySubscriber {
  return new OtelSubscriber(options);
}

class OtelSubscriber implements GatewaySubscriber {
  readonly name = INSTRUMENTATION_NAME;
  private readonly tracer: Tracer;
  private readonly calls = new Map<string, CallTrace>();
  private readonly breakers = new Map<string, { scope: string; source: string; state: BreakerState }>();
  private readonly duration: Histogram;
  private readonly tokens: Histogram;
  private readonly attemptCount: Counter;
  private readonly retries: Counter;
  private readonly budgetRefusals: Counter;
  private readonly inflight: UpDownCounter;
  private readonly captureContent: boolean;

  constructor(options: OtelSubscriberOptions) {
    this.captureContent = options.captureContent === true;
    this.tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
    this.duration = meter.createHistogram(METRIC.operationDuration, {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    });
    this.tokens = meter.createHistogram(METRIC.tokenUsage, {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.attemptCount = meter.createCounter(METRIC.attempts, { description: 'Attempts by outcome', unit: '{attempt}' });
    this.retries = meter.createCounter(METRIC.retries, { description: 'Retries scheduled', unit: '{retry}' });
    this.budgetRefusals = meter.createCounter(METRIC.budgetRefusals, { description: 'Calls refused by a spend budget', unit: '{call}' });
    this.inflight = meter.createUpDownCounter(METRIC.inflight, { description: 'Attempts in flight', unit: '{attempt}' });
    meter
      .createObservableGauge(METRIC.breakerState, { description: 'Breaker state per source: 0 closed, 1 half-open, 2 open' })
      .addCallback((result) => {
        for (const { scope, source, state } of this.breakers.values()) {
          result.observe(BREAKER_STATE_VALUE[state], { [ATTR.scope]: scope, [ATTR.source]: source });
        }
      });
  }

  onCallStart({ call, models }: CallStartEvent): void {
    const operation = OPERATION_NAME[call.operation];
    const requestModel = models.length === 1 ? models[0] : undefined;
    const attributes: Attributes = {
      [ATTR.operationName]: operation,
      [ATTR.scope]: call.scope,
      [ATTR.logicalCallId]: call.logicalCallId,
    };
    if (requestModel !== undefined) attributes[ATTR.requestModel] = requestModel;
    if (call.tenantId !== undefined) attributes[ATTR.tenantId] = call.tenantId;
    if (call.priority !== undefined) attributes[ATTR.priority] = call.priority;
    const parent = context.active();
    const span = this.tracer.startSpan(spanName(operation, requestModel), { kind: SpanKind.CLIENT, attributes }, parent);
    this.calls.set(call.logicalCallId, {
      span,
      context: trace.setSpan(parent, span),
      operation,
      attempts: new Map(),
      requestModel,
      queueWaitMs: 0,
      cached: false,
    });
  }

  onAttemptStart({ call, callId, attempt, source, model }: AttemptStartEvent): void {
    const state = this.calls.get(call.logicalCallId);
    if (!state) return;
    if (state.model === undefined) {
      // The first attempt names the model of a scope whose sources serve several.
      state.model = model;
      state.span.setAttributes(modelAttributes(model));
      if (state.requestModel === undefined) {
        state.requestModel = model.modelId;
        state.span.setAttribute(ATTR.requestModel, model.modelId);
        state.span.updateName(spanName(state.operation, model.modelId));
      }
    }
    const attributes: Attributes = {
      ...modelAttributes(model),
      [ATTR.operationName]: state.operation,
      [ATTR.requestModel]: model.modelId,
      [ATTR.source]: source,
      [ATTR.attempt]: attempt,
    };
    const span = this.tracer.startSpan(`${state.operation} ${model.modelId} attempt`, { kind: SpanKind.INTERNAL, attributes }, state.context);
    state.attempts.set(callId, span);
    this.inflight.add(1, { [ATTR.source]: source, [ATTR.operationName]: state.operation });
  }

  onAttemptEnd(event: AttemptEndEvent): void {
    const state = this.calls.get(event.call.logicalCallId);
    const span = state?.attempts.get(event.callId);
    if (!state || !span) return;
    state.attempts.delete(event.callId);
    const labels = { [ATTR.source]: event.source, [ATTR.operationName]: state.operation };
    this.inflight.add(-1, labels);
    this.attemptCount.add(1, { ...labels, [ATTR.outcome]: event.outcome });
    span.setAttribute(ATTR.outcome, event.outcome);
    if (event.usage) {
      span.setAttribute(ATTR.inputTokens, event.usage.promptTokens);
      span.setAttribute(ATTR.outputTokens, event.usage.completionTokens);
    }
    if (event.statusCode !== undefined) span.setAttribute(ATTR.httpStatusCode, event.statusCode);
    if (this.captureContent) {
      const { requestText, responseText } = event.content;
      if (requestText !== undefined) span.setAttribute(ATTR.requestText, requestText);
      if (responseText !== undefined) span.setAttribute(ATTR.responseText, responseText);
    }
    if (event.status !== 'ok') markFailed(span, event.error);
    span.end();
  }

  onRetryScheduled({ call, source, delayMs, reason, attempt }: RetryScheduledEvent): void {
    const state = this.calls.get(call.logicalCallId);
    this.retries.add(1, { [ATTR.source]: source, ...(state && { [ATTR.operationName]: state.operation }) });
    state?.span.addEvent('pgw.retry_scheduled', { 'pgw.retry.delay_ms': delayMs, 'pgw.retry.reason': reason, [ATTR.attempt]: attempt });
  }

  /** Counted per scope (and tenant, under per-tenant budgets); the call's span ends with the error as any failure. */
  onBudgetRefused({ call, scope, tenantId, budgetUsd, spentUsd }: BudgetRefusedEvent): void {
    this.budgetRefusals.add(1, { [ATTR.scope]: scope, ...(tenantId !== undefined && { [ATTR.tenantId]: tenantId }) });
    this.calls.get(call.logicalCallId)?.span.addEvent('pgw.budget_refused', { 'pgw.budget.usd': budgetUsd, 'pgw.budget.spent_usd': spentUsd });
  }

  onQuotaWaitStart({ call, reason, delayMs }: QuotaWaitStartEvent): void {
    this.calls.get(call.logicalCallId)?.span.addEvent('pgw.quota_wait', { 'pgw.wait.reason': reason, 'pgw.wait.delay_ms': delayMs });
  }

  onQuotaWaitEnd({ call, waitedMs }: QuotaWaitEndEvent): void {
    const state = this.calls.get(call.logicalCallId);
    if (state) state.queueWaitMs += waitedMs;
  }

  onCacheHit({ call }: CacheHitEvent): void {
    const state = this.calls.get(call.logicalCallId);
    if (state) state.cached = true;
  }

  onFirstToken({ call, callId, ttftMs }: FirstTokenEvent): void {
    this.calls.get(call.logicalCallId)?.attempts.get(callId)?.setAttribute(ATTR.ttftMs, ttftMs);
  }

  /** Feeds the breaker gauge; a transition belongs to a source, not to a call, so it makes no span event. */
  onBreakerStateChange({ scope, source, to }: BreakerStateEvent): void {
    this.breakers.set(`${scope}\u0000${source}`, { scope, source, state: to });
  }

  onCallEnd(event: CallEndEvent): void {
    const { call, result } = event;
    const state = this.calls.get(call.logicalCallId);
    if (!state) return;
    this.calls.delete(call.logicalCallId);
    const { span } = state;
    // Attempts still open (none in a well-behaved pipeline) end with their call.
    for (const attempt of state.attempts.values()) attempt.end();
    const attributes: Attributes = {
      [ATTR.attempts]: event.attempts,
      [ATTR.cached]: state.cached,
      [ATTR.queueWaitMs]: state.queueWaitMs,
    };
    const source = result?.source ?? event.sourcesTried.at(-1);
    if (source !== undefined) {
      attributes[ATTR.source] = source;
      const breaker = this.breakers.get(`${call.scope}\u0000${source}`);
      attributes[ATTR.breakerState] = breaker?.state ?? 'closed';
    }
    if (result?.model !== undefined) attributes[ATTR.responseModel] = result.model;
    if (result?.usage) {
      attributes[ATTR.inputTokens] = result.usage.promptTokens;
      attributes[ATTR.outputTokens] = result.usage.completionTokens;
    }
    if (result?.costUsd !== undefined) attributes[ATTR.costUsd] = result.costUsd;
    span.setAttributes(attributes);
    const metricAttributes: Attributes = { [ATTR.operationName]: state.operation, ...(state.model && modelAttributes(state.model)) };
    if (state.requestModel !== undefined) metricAttributes[ATTR.requestModel] = state.requestModel;
    if (result?.model !== undefined) metricAttributes[ATTR.responseModel] = result.model;
    if (event.status !== 'ok') {
      markFailed(span, event.error);
      metricAttributes[ATTR.errorType] = errorType(event.error);
    }
    this.duration.record(event.totalLatencyMs / 1000, metricAttributes);
    if (result?.usage && !result.cached) {
      this.tokens.record(result.usage.promptTokens, { ...metricAttributes, [ATTR.tokenType]: 'input' });
      this.tokens.record(result.usage.completionTokens, { ...metricAttributes, [ATTR.tokenType]: 'output' });
    }
    span.end();
  }
}

function spanName(operation: string, model: string | undefined): string {
  return model === undefined ? operation : `${operation} ${model}`;
}

/** Built once per model: attempts of one model share the same (frozen) attribute set. */
const modelAttributeCache = new WeakMap<ModelInfo, Readonly<Attributes>>();

function modelAttributes(model: ModelInfo): Readonly<Attributes> {
  let attributes = modelAttributeCache.get(model);
  if (attributes === undefined) {
    const built: Attributes = { [ATTR.providerName]: model.provider };
    if (model.endpoint) {
      built[ATTR.serverAddress] = model.endpoint.address;
      built[ATTR.serverPort] = model.endpoint.port;
    }
    attributes = Object.freeze(built);
    modelAttributeCache.set(model, attributes);
  }
  return attributes;
}

/** The error's class as `error.type`; its message is not recorded (it may quote an upstream body). */
function markFailed(span: Span, error: unknown): void {
  const type = errorType(error);
  span.setAttribute(ATTR.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}
