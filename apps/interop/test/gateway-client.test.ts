/**
 * The governed client through `fromEnv` against software nobody here wrote: an in-band error inside
 * a 200 stream (`type: invalid_request_error` → RequestRejectedError, not retried, breaker left
 * alone), a relay's routing headers (`{SCOPE}__SOURCE__{NAME}__HEADERS`) and a relay that cannot
 * stream on Node (`{SCOPE}__SOURCE__{NAME}__STREAM=false`: chatStream sends one plain request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, RequestRejectedError } from '@pgw/client';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import {
  llmopsRouting,
  portkeyRouting,
  startLlmopsGateway,
  startMockLlm,
  startPortkeyGateway,
  type ChildServer,
  type MockLlmServer,
} from '../src/index.js';
import { REJECTION } from './helpers.js';

const HI = [{ role: 'user' as const, content: 'hi' }];

let mock: MockUpstream;
let mockLlm: MockLlmServer;
let portkey: ChildServer;
let llmops: ChildServer;

beforeAll(async () => {
  mock = await startMockUpstream({
    script: {
      sources: {
        good: { content: 'one two three' },
        inband: { content: 'one two three', steps: [{ kind: 'in_band_error', afterTokens: 0, error: REJECTION }] },
      },
    },
  });
  [mockLlm, portkey, llmops] = await Promise.all([
    startMockLlm({
      streaming: { chunkSize: 4, chunkIntervalMs: 1 },
      rules: [
        // First request: an error rule (streamed, mock-llm reports it inside a 200 stream); afterwards healthy.
        { path: '/v1/chat/completions', sequence: 0, response: { status: 400, content: JSON.stringify({ error: REJECTION }) } },
        {
          path: '/v1/chat/completions',
          sequence: 1,
          response: {
            status: 200,
            content: JSON.stringify({
              id: 'chatcmpl-ok',
              object: 'chat.completion',
              created: 1,
              model: 'interop-model',
              choices: [{ index: 0, message: { role: 'assistant', content: 'healthy' }, finish_reason: 'stop' }],
            }),
          },
        },
      ],
    }),
    startPortkeyGateway(),
    startLlmopsGateway(),
  ]);
});
afterAll(async () => {
  await Promise.all([mockLlm, portkey, llmops].map((server) => server?.stop()));
  await mock?.close();
});

/**
 * One source `up`. A single failure would trip the breaker (threshold 1) and an open breaker
 * fails fast, so a healthy call right after a rejection proves the breaker was left alone.
 */
function env(scope: string, baseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PGW_CACHE_BACKEND: 'none',
    [`${scope}__SOURCE__UP__BASE_URL`]: baseUrl,
    [`${scope}__SOURCE__UP__MODEL`]: 'interop-model',
    [`${scope}__SOURCE__UP__API_KEY`]: 'sk-interop-test',
    [`${scope}__MAX_ATTEMPTS`]: '3',
    [`${scope}__BREAKER__FAILURE_THRESHOLD`]: '1',
    [`${scope}__CIRCUIT_OPEN`]: 'fail_fast',
    ...Object.fromEntries(Object.entries(extra).map(([key, value]) => [`${scope}__SOURCE__UP__${key}`, value])),
  };
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _delta of stream);
}

describe('GatewayClient against @dwmkerr/mock-llm (errors inside a 200 stream)', () => {
  it('an in-band invalid_request_error ends as RequestRejectedError, not retried, breaker untouched', async () => {
    const client = await GatewayClient.fromEnv('IOMOCKLLM', { env: env('IOMOCKLLM', `${mockLlm.url}/v1`), warn: () => {} });
    try {
      const stream = client.chatStream(HI);
      await expect(drain(stream)).rejects.toBeInstanceOf(RequestRejectedError);
      // Not retried: a retry would have consumed sequence 1 and succeeded.
      await expect(client.chat(HI)).resolves.toMatchObject({ content: 'healthy', callStats: { attempts: 1 } });
    } finally {
      await client.close();
    }
  });
});

describe('GatewayClient through @llmops/gateway (routing headers, streams)', () => {
  const headers = () => JSON.stringify(llmopsRouting(mock.baseUrl('inband')));

  it('an in-band error the relay forwards ends as RequestRejectedError after one upstream request', async () => {
    mock.reset();
    const client = await GatewayClient.fromEnv('IOLLMOPS', { env: env('IOLLMOPS', `${llmops.url}/v1`, { HEADERS: headers() }), warn: () => {} });
    try {
      await expect(drain(client.chatStream(HI))).rejects.toBeInstanceOf(RequestRejectedError);
      expect(mock.counters('inband').chat).toBe(1);
      // `inband` answers normally once its one step is used: the breaker must not be open.
      const streamed = client.chatStream(HI);
      await drain(streamed);
      await expect(streamed.response).resolves.toMatchObject({ content: 'one two three' });
    } finally {
      await client.close();
    }
  });

  it('without the routing headers the relay answers 400: RequestRejectedError, one attempt', async () => {
    const client = await GatewayClient.fromEnv('IOLLMOPSBARE', { env: env('IOLLMOPSBARE', `${llmops.url}/v1`), warn: () => {} });
    try {
      await expect(client.chat(HI)).rejects.toBeInstanceOf(RequestRejectedError);
    } finally {
      await client.close();
    }
  });
});

describe('GatewayClient through @portkey-ai/gateway (routing headers, STREAM=false)', () => {
  it('a healthy chat and a chatStream succeed through the relay; the stream is served by one non-streamed request', async () => {
    mock.reset();
    const extra = { HEADERS: JSON.stringify(portkeyRouting(mock.baseUrl('good'))), STREAM: 'false' };
    const client = await GatewayClient.fromEnv('IOPORTKEY', { env: env('IOPORTKEY', `${portkey.url}/v1`, extra), warn: () => {} });
    try {
      await expect(client.chat(HI)).resolves.toMatchObject({ content: 'one two three', source: 'up' });
      const streamed = client.chatStream(HI);
      await drain(streamed);
      await expect(streamed.response).resolves.toMatchObject({ content: 'one two three' });
      const bodies = mock.requests('good').map((r) => r.body as { stream?: unknown });
      expect(bodies.map((b) => b.stream === true)).toEqual([false, false]);
      expect(mock.requests('good').every((r) => r.headers['authorization'] === 'Bearer sk-interop-test')).toBe(true);
    } finally {
      await client.close();
    }
  });
});
