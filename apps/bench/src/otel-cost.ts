/**
 * What events and OpenTelemetry cost: chat throughput of one run with no subscriber, with a
 * subscriber listening to every event and doing nothing, and with `@pgw/telemetry-otel` on a real
 * SDK (spans batched to an exporter that drops them, metrics to a reader), as ratios to "none".
 * Two settings: an in-process model that answers at once (the governed path alone, the worst case
 * for overhead) and the mock upstream in a child process over HTTP (what an application sees).
 * Run: pnpm --filter @pgw/bench otel-cost (with --expose-gc, so garbage is collected between rounds)
 */
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { InMemoryGovernor } from '@pgw/backend-memory';
import { GatewayClient, GATEWAY_EVENT_NAMES, gatewaySettings } from '@pgw/client';
import type { GatewaySettings, GatewaySubscriber } from '@pgw/client';
import { MODEL_SPECIFICATION_VERSION, type ChatModel } from '@pgw/core';
import { otelSubscriber } from '@pgw/telemetry-otel';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { formatRate, formatRatio, interleave, machineLine, ratio, runConcurrent, type Contender } from './harness.js';
import { MockProcess } from './mock-process.js';
import { MESSAGES, SOURCES } from './mock-script.js';

const CONCURRENCY = 16;
const ROUNDS = Number(process.env['OTEL_COST_ROUNDS'] ?? 5);

class DroppingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** Listens to every event and does nothing: the cost of building and dispatching them. */
const listenEverything = (): GatewaySubscriber => Object.fromEntries(GATEWAY_EVENT_NAMES.map((name) => [name, () => {}])) as GatewaySubscriber;

/** A chat model that answers at once, in process. */
const instantModel: ChatModel = {
  specificationVersion: MODEL_SPECIFICATION_VERSION,
  provider: 'bench',
  modelId: 'instant',
  capabilities: { jsonSchema: false, streaming: false },
  managedKeys: [],
  generate: async () => ({ content: 'hi', model: 'instant', usage: { promptTokens: 5, completionTokens: 1, usageSource: 'measured' }, thinkingObservation: 'unknown' }),
};

type Variant = { name: string; subscribers: () => GatewaySubscriber[] };

async function measure(label: string, build: (subscribers: GatewaySubscriber[]) => Promise<GatewayClient>, callsPerRound: number): Promise<void> {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new DroppingExporter())] });
  const meterProvider = new MeterProvider({ readers: [new PullReader()] });
  const variants: Variant[] = [
    { name: 'no subscriber', subscribers: () => [] },
    { name: 'no-op subscriber on every event', subscribers: () => [listenEverything()] },
    { name: 'OpenTelemetry subscriber (SDK)', subscribers: () => [otelSubscriber({ tracerProvider, meterProvider })] },
  ];
  const clients = await Promise.all(variants.map((variant) => build(variant.subscribers())));
  const contenders: Contender[] = variants.map((variant, index) => ({
    name: variant.name,
    round: () => runConcurrent(callsPerRound, CONCURRENCY, () => clients[index]!.chat(MESSAGES)),
  }));
  try {
    // Between rounds: export what the SDK batched and collect garbage, so one contender's debt
    // (spans queued, objects to free) is not paid inside the next one's timing.
    const between = async (): Promise<void> => {
      await tracerProvider.forceFlush();
      (globalThis as { gc?: () => void }).gc?.();
    };
    const results = await interleave(contenders, { rounds: ROUNDS, between });
    const none = results[0]!.median;
    console.log(`\n${label} (concurrency ${CONCURRENCY}, ${callsPerRound} calls × ${ROUNDS} rounds, medians)`);
    for (const result of results) {
      console.log(`  ${result.name.padEnd(34)} ${formatRate(result.median).padStart(8)} calls/s   ratio ${formatRatio(ratio(result.median, none))}`);
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
  }
}

async function inProcessClient(subscribers: GatewaySubscriber[]): Promise<GatewayClient> {
  const scope = uniqueScope('OTEL_COST');
  const settings: GatewaySettings = gatewaySettings({
    scope,
    sources: [{ name: 'instant', model: instantModel }],
    backends: { cache: 'none' },
  } as Parameters<typeof gatewaySettings>[0]);
  const limits = { rpm: 0, tpm: 0, maxConcurrency: 0 };
  return new GatewayClient({
    settings,
    governor: new InMemoryGovernor({ scope, sources: { instant: limits }, global: limits, leaseTtlMs: settings.leaseTtlMs, policy: settings.breaker }),
    subscribers,
  });
}

async function main(): Promise<void> {
  console.log(`otel-cost: ${machineLine()}`);
  await measure('in-process model (governed path only)', inProcessClient, 20_000);
  const mock = await MockProcess.start();
  try {
    const baseUrl = mock.baseUrl(SOURCES.chat);
    await measure(
      'mock upstream over HTTP (child process)',
      (subscribers) => {
        const settings = benchSettings({ scope: uniqueScope('OTEL_COST'), baseUrl, backend: 'memory' });
        const plain = { ...settings, sources: settings.sources.map((source) => ({ ...source, stream: false })) };
        return GatewayClient.fromSettings(plain, { subscribers });
      },
      3_000,
    );
  } finally {
    await mock.close();
  }
}

await main();
