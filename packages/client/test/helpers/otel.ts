/** A real OpenTelemetry SDK for the tests: spans to an in-memory exporter, metrics through a manual reader. */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** Collects on demand (no timer): `collect()` returns what the meters hold. */
class ManualReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export class OtelHarness {
  readonly exporter = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.exporter)] });
  readonly reader = new ManualReader();
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });

  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }

  /** The call span (kind CLIENT) whose `attribute` is `value` (default: the logical call id), and its attempt spans in order. */
  call(value: string, attribute = 'pgw.logical_call_id'): { span: ReadableSpan; attempts: ReadableSpan[] } {
    const span = this.spans().find((s) => s.kind === SpanKind.CLIENT && s.attributes[attribute] === value);
    if (!span) throw new Error(`no call span with ${attribute}=${value}`);
    const attempts = this.spans()
      .filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => Number(a.attributes['pgw.attempt']) - Number(b.attributes['pgw.attempt']));
    return { span, attempts };
  }

  /** Data points of metric `name`. */
  async points(name: string): Promise<Array<DataPoint<unknown>>> {
    const { resourceMetrics } = await this.reader.collect();
    return pointsOf(resourceMetrics, name);
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.tracerProvider.shutdown(), this.meterProvider.shutdown()]);
  }
}

function pointsOf(resourceMetrics: ResourceMetrics, name: string): Array<DataPoint<unknown>> {
  return resourceMetrics.scopeMetrics.flatMap((scope) =>
    scope.metrics.filter((metric) => metric.descriptor.name === name).flatMap((metric) => metric.dataPoints as Array<DataPoint<unknown>>),
  );
}

/** Attribute keys that would carry message content. */
export const contentKeys = (attributes: Attributes) =>
  Object.keys(attributes).filter((key) => key.includes('text') || key.includes('messages') || key.includes('content'));
