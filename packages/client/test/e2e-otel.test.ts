/**
 * OpenTelemetry end to end: GatewayClient.fromEnv against the loopback mock, the `@pgw/telemetry-otel`
 * subscriber on a real SDK (in-memory span exporter, manual metric reader).
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { otelSubscriber } from '@pgw/telemetry-otel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallDeadlineExceeded, GatewayClient } from '../src/index.js';
import type { GatewayClientOverrides } from '../src/index.js';
import { MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';
import { contentKeys, OtelHarness } from './helpers/otel.js';

const HI = [{ role: 'user' as const, content: 'hi there' }];

let fixture: MockFixture;
let otel: OtelHarness;
beforeAll(async () => {
  fixture = await MockFixture.start();
  otel = new OtelHarness();
});
afterAll(async () => {
  await otel.shutdown();
  await fixture.close();
});

async function withClient<T>(
  sources: string[],
  keys: Record<string, string>,
  run: (client: GatewayClient) => Promise<T>,
  overrides: GatewayClientOverrides & { captureContent?: boolean } = {},
): Promise<T> {
  const scope = uniqueScope('otel');
  const env: Record<string, string> = {
    PGW_LIMITER_BACKEND: 'memory',
    PGW_CACHE_BACKEND: 'none',
    ...scopeKeys(scope, { RETRY__BACKOFF_BASE_S: '0.01', RETRY__BACKOFF_MAX_S: '0.05', SELECTOR: 'ordered', SOURCES: sources.join(','), ...keys }),
  };
  for (const name of sources) Object.assign(env, fixture.sourceKeys(scope, name));
  const { captureContent, ...rest } = overrides;
  const subscriber = otelSubscriber({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider, captureContent });
  const client = await GatewayClient.fromEnv(scope, { env, warn: () => {}, subscribers: [subscriber], ...rest });
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

describe('OpenTelemetry through the real client', () => {
  it('a retry-then-success call: one CLIENT call span, two attempt spans, the failed one with error.type; GenAI attributes and metrics', async () => {
    const flaky = fixture.source('flaky', { steps: [{ kind: 'status', status: 503 }] });
    await withClient([flaky], {}, async (client) => {
      const response = await client.chat(HI, { tenantId: 'acme' });
      const { span, attempts } = otel.call(response.callStats.logicalCallId);
      expect(span.name).toBe('chat mock-model');
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai-compatible',
        'gen_ai.request.model': 'mock-model',
        'gen_ai.response.model': 'mock-model',
        'gen_ai.usage.input_tokens': response.usage.promptTokens,
        'gen_ai.usage.output_tokens': response.usage.completionTokens,
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(fixture.mock.url).port),
        'pgw.source': flaky,
        'pgw.attempts': 2,
        'pgw.cached': false,
        'pgw.breaker.state': 'closed',
        'pgw.queue_wait_ms': 0,
        'pgw.logical_call_id': response.callStats.logicalCallId,
        'pgw.tenant_id': 'acme',
      });
      expect(span.attributes['error.type']).toBeUndefined();
      expect(attempts).toHaveLength(2);
      expect(attempts[0]!.attributes).toMatchObject({ 'error.type': 'TransientError', 'pgw.outcome': 'transient', 'http.response.status_code': 503 });
      expect(attempts[0]!.status.code).toBe(SpanStatusCode.ERROR);
      expect(attempts[1]!.attributes).toMatchObject({ 'pgw.outcome': 'success', 'pgw.source': flaky });
      expect(attempts[1]!.attributes['error.type']).toBeUndefined();
      expect(span.events.map((event) => event.name)).toEqual(['pgw.retry_scheduled']);
      for (const s of [span, ...attempts]) expect(contentKeys(s.attributes)).toEqual([]);

      const durations = await otel.points('gen_ai.client.operation.duration');
      expect(durations.some((point) => point.attributes['gen_ai.request.model'] === 'mock-model')).toBe(true);
      const tokens = await otel.points('gen_ai.client.token.usage');
      expect(tokens.map((point) => point.attributes['gen_ai.token.type']).sort()).toEqual(expect.arrayContaining(['input', 'output']));
      const outcomes = (await otel.points('pgw.attempts')).filter((point) => point.attributes['pgw.source'] === flaky);
      expect(outcomes.map((point) => [point.attributes['pgw.outcome'], point.value]).sort()).toEqual([
        ['success', 1],
        ['transient', 1],
      ]);
      const retries = (await otel.points('pgw.retries')).filter((point) => point.attributes['pgw.source'] === flaky);
      expect(retries.map((point) => point.value)).toEqual([1]);
      const inflight = (await otel.points('pgw.attempts.inflight')).filter((point) => point.attributes['pgw.source'] === flaky);
      expect(inflight.map((point) => point.value)).toEqual([0]);
    });
  });

  it('a call deadline ends the call span with error.type CallDeadlineExceeded', async () => {
    const stuck = fixture.source('stuck', { otherwise: { kind: 'hang' } });
    await withClient([stuck], { CALL_DEADLINE_S: '0.3' }, async (client) => {
      await expect(client.chat(HI, { tenantId: 'deadline-call' })).rejects.toBeInstanceOf(CallDeadlineExceeded);
      const { span, attempts } = otel.call('deadline-call', 'pgw.tenant_id');
      expect(span.attributes['error.type']).toBe('CallDeadlineExceeded');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]!.attributes['pgw.outcome']).toBe('cancelled');
      const durations = await otel.points('gen_ai.client.operation.duration');
      expect(durations.some((point) => point.attributes['error.type'] === 'CallDeadlineExceeded')).toBe(true);
    });
  });

  it("a caller's abort ends the call span with error.type AbortError", async () => {
    const stuck = fixture.source('held', { otherwise: { kind: 'hang' } });
    await withClient([stuck], {}, async (client) => {
      const controller = new AbortController();
      const call = client.chat(HI, { tenantId: 'aborted-call', signal: controller.signal });
      await fixture.inflight(stuck);
      controller.abort();
      await expect(call).rejects.toMatchObject({ name: 'AbortError' });
      const { span } = otel.call('aborted-call', 'pgw.tenant_id');
      expect(span.attributes['error.type']).toBe('AbortError');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
    });
  });

  it('records request and response text only with captureContent: true', async () => {
    const plain = fixture.source('plain');
    await withClient(
      [plain],
      {},
      async (client) => {
        const response = await client.chat(HI);
        const { attempts } = otel.call(response.callStats.logicalCallId);
        expect(attempts[0]!.attributes['pgw.request.text']).toBe('user: hi there');
        expect(attempts[0]!.attributes['pgw.response.text']).toBe(response.content);
      },
      { captureContent: true },
    );
  });

  it('an embedding call gets an `embeddings` span', async () => {
    const { EmbeddingClient } = await import('../src/index.js');
    const scope = uniqueScope('otelembed');
    const name = fixture.source('vectors');
    const env = { PGW_LIMITER_BACKEND: 'memory', ...fixture.sourceKeys(scope, name) };
    const subscriber = otelSubscriber({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });
    const client = await EmbeddingClient.fromEnv(scope, { env, warn: () => {}, subscribers: [subscriber] });
    try {
      const response = await client.embed(['a', 'b']);
      const { span, attempts } = otel.call(response.callStats.logicalCallId);
      expect(span.name).toBe('embeddings mock-model');
      expect(span.attributes['gen_ai.operation.name']).toBe('embeddings');
      expect(attempts).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
