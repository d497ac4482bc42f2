/** The subscriber alone, fed hand-made events, on a real SDK: naming, the breaker gauge, content off by default. */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { CallInfo, GatewaySubscriber, ModelInfo } from '@pgw/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { otelSubscriber } from '../src/index.js';

class ManualReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const call: CallInfo = { logicalCallId: 'L1', scope: 'LLM', operation: 'chat', startedAt: 0 };
const model = (modelId: string): ModelInfo => ({ provider: 'my-provider', modelId });

let exporter: InMemorySpanExporter;
let tracerProvider: BasicTracerProvider;
let reader: ManualReader;
let meterProvider: MeterProvider;
let subscriber: GatewaySubscriber;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  reader = new ManualReader();
  meterProvider = new MeterProvider({ readers: [reader] });
  subscriber = otelSubscriber({ tracerProvider, meterProvider });
});
afterEach(async () => {
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
});

function attempt(callId: string, source: string, modelId: string, status: 'ok' | 'error', content = {}) {
  const base = { call, callId, attempt: 1, source, model: model(modelId) };
  subscriber.onAttemptStart!(base);
  subscriber.onAttemptEnd!({
    ...base,
    status,
    outcome: status === 'ok' ? 'success' : 'transient',
    latencyMs: 5,
    ...(status === 'error' && { error: Object.assign(new Error('boom'), { name: 'TransientError' }) }),
    content,
  });
}

describe('otelSubscriber', () => {
  it('a scope with several models names the call span after the first attempt model', () => {
    subscriber.onCallStart!({ call, models: ['m1', 'm2'] });
    attempt('c1', 'a', 'm2', 'ok');
    subscriber.onCallEnd!({ call, status: 'ok', attempts: 1, totalLatencyMs: 5, sourcesTried: ['a'], result: { source: 'a', model: 'm2', cached: false } });
    const callSpan = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT)!;
    expect(callSpan.name).toBe('chat m2');
    expect(callSpan.attributes).toMatchObject({ 'gen_ai.request.model': 'm2', 'gen_ai.provider.name': 'my-provider' });
    expect(callSpan.attributes['server.address']).toBeUndefined(); // a model without an endpoint
  });

  it("labels the call span with the call's tenant and priority class", () => {
    const batchCall = { ...call, tenantId: 'acme', priority: 'batch' as const };
    subscriber.onCallStart!({ call: batchCall, models: ['m'] });
    subscriber.onCallEnd!({ call: batchCall, status: 'ok', attempts: 0, totalLatencyMs: 1, sourcesTried: [], result: { source: 'a', model: 'm', cached: true } });
    const callSpan = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT)!;
    expect(callSpan.attributes).toMatchObject({ 'pgw.tenant_id': 'acme', 'pgw.priority': 'batch' });
  });

  it('never records content by default, even when the event carries it', () => {
    subscriber.onCallStart!({ call, models: ['m'] });
    attempt('c1', 'a', 'm', 'error', { requestText: 'user: secret', responseText: 'x' });
    subscriber.onCallEnd!({ call, status: 'error', error: new TypeError('bug'), attempts: 1, totalLatencyMs: 5, sourcesTried: ['a'] });
    for (const span of exporter.getFinishedSpans()) {
      expect(JSON.stringify(span.attributes)).not.toContain('secret');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
    }
    const callSpan = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.CLIENT)!;
    expect(callSpan.attributes['error.type']).toBe('TypeError');
  });

  it('keeps the breaker state per source as a gauge', async () => {
    subscriber.onBreakerStateChange!({ scope: 'LLM', source: 'a', from: 'closed', to: 'open', reason: 'failures' });
    subscriber.onBreakerStateChange!({ scope: 'LLM', source: 'b', from: 'open', to: 'half_open', reason: 'cooldown_elapsed' });
    const { resourceMetrics } = await reader.collect();
    const gauge = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((metric) => metric.descriptor.name === 'pgw.breaker.state')!;
    expect(gauge.dataPoints.map((point) => [point.attributes['pgw.source'], point.value])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('counts spend-budget refusals per scope and tenant', async () => {
    const refused = { call, scope: 'LLM', budgetUsd: 1, spentUsd: 0.9, resetAt: undefined };
    subscriber.onBudgetRefused!(refused);
    subscriber.onBudgetRefused!(refused);
    subscriber.onBudgetRefused!({ ...refused, tenantId: 'acme' });
    const { resourceMetrics } = await reader.collect();
    const counter = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((metric) => metric.descriptor.name === 'pgw.budget.refusals')!;
    expect(counter.dataPoints.map((point) => [point.attributes['pgw.tenant_id'] ?? null, point.value])).toEqual([
      [null, 2],
      ['acme', 1],
    ]);
  });

  it('ignores events of a call it never saw start', () => {
    expect(() => attempt('c9', 'a', 'm', 'ok')).not.toThrow();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
