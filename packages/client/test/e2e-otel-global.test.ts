/**
 * `PGW_OTEL=on`: fromEnv loads `@pgw/telemetry-otel` on the globally registered providers, and the
 * spans leave the process by OTLP/HTTP to a loopback receiver this test starts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../src/index.js';
import { MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';
import { OtelHarness } from './helpers/otel.js';

interface Received {
  path: string;
  contentType: string | undefined;
  body: string;
}

/** Accepts OTLP/HTTP POSTs and keeps them. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

let fixture: MockFixture;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let otel: OtelHarness;
let exported: BasicTracerProvider;
beforeAll(async () => {
  fixture = await MockFixture.start();
  receiver = await startReceiver();
  otel = new OtelHarness();
  exported = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` })), new SimpleSpanProcessor(otel.exporter)],
  });
  trace.setGlobalTracerProvider(exported);
  metrics.setGlobalMeterProvider(otel.meterProvider);
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  await exported.shutdown();
  await otel.shutdown();
  await new Promise((resolve) => receiver.server.close(resolve));
  await fixture.close();
});

describe('PGW_OTEL=on', () => {
  it('traces every call on the global providers and exports the spans by OTLP/HTTP', async () => {
    const scope = uniqueScope('otelenv');
    const name = fixture.source('global');
    const env = { PGW_OTEL: 'on', PGW_LIMITER_BACKEND: 'memory', ...scopeKeys(scope, { CACHE__NAMESPACE: scope }), ...fixture.sourceKeys(scope, name) };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    expect(client.settings.backends.otel).toBe(true);
    try {
      const response = await client.chat([{ role: 'user', content: 'hi' }]);
      const { span, attempts } = otel.call(response.callStats.logicalCallId);
      expect(span.name).toBe('chat mock-model');
      expect(attempts).toHaveLength(1);
      expect((await otel.points('gen_ai.client.operation.duration')).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    await exported.forceFlush();
    const traces = receiver.received.filter((entry) => entry.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const body = traces.map((entry) => entry.body).join('\n');
    expect(body).toContain('chat mock-model');
    expect(body).toContain('gen_ai.operation.name');
  });

  it('is off unless asked', async () => {
    const scope = uniqueScope('oteloff');
    const name = fixture.source('quiet');
    const client = await GatewayClient.fromEnv(scope, { env: { PGW_LIMITER_BACKEND: 'memory', ...fixture.sourceKeys(scope, name) }, warn: () => {} });
    try {
      expect(client.settings.backends.otel).toBeUndefined();
      const response = await client.chat([{ role: 'user', content: 'hi' }]);
      expect(() => otel.call(response.callStats.logicalCallId)).toThrow(/no call span/);
    } finally {
      await client.close();
    }
  });
});
