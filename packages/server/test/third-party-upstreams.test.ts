/** pgw serve in front of upstreams nobody here wrote (apps/interop): mock-llm directly, and the llmops relay in between. */
import { llmopsRouting, startLlmopsGateway, startMockLlm, type ChildServer, type MockLlmServer } from '@pgw/interop';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayServer } from '../src/index.js';

const completion = (content: string) =>
  JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion', created: 1, model: 'third-party', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

let mockLlm: MockLlmServer;
let llmops: ChildServer;
let mock: MockUpstream;
let server: GatewayServer;
let openai: OpenAI;

beforeAll(async () => {
  [mockLlm, llmops, mock] = await Promise.all([
    startMockLlm({ streaming: { chunkSize: 4, chunkIntervalMs: 1 }, rules: [{ path: '/v1/chat/completions', response: { status: 200, content: completion('from mock-llm') } }] }),
    startLlmopsGateway(),
    startMockUpstream({ port: 0, script: { sources: { main: { content: 'through the relay' } } } }),
  ]);
  server = new GatewayServer({
    warn: () => {},
    env: {
      PGW_SERVER__MODELS: JSON.stringify({ direct: 'DIRECT', relayed: 'RELAYED' }),
      DIRECT__SOURCE__MOCKLLM__BASE_URL: `${mockLlm.url}/v1`,
      DIRECT__SOURCE__MOCKLLM__MODEL: 'third-party',
      RELAYED__SOURCE__LLMOPS__BASE_URL: `${llmops.url}/v1`,
      RELAYED__SOURCE__LLMOPS__MODEL: 'gpt-4o-mini',
      RELAYED__SOURCE__LLMOPS__HEADERS: JSON.stringify(llmopsRouting(mock.baseUrl('main'))),
      PGW_CACHE_BACKEND: 'none',
    },
  });
  openai = new OpenAI({ baseURL: `${await server.listen({ port: 0 })}/v1`, apiKey: 'unused', maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await server?.drain(0);
  await Promise.all([mockLlm?.stop(), llmops?.stop(), mock?.close()]);
});

describe('third-party upstreams behind pgw serve', () => {
  it('answers from mock-llm, whole and streamed', async () => {
    const whole = await openai.chat.completions.create({ model: 'direct', messages: [{ role: 'user', content: 'hi' }] });
    expect(whole.choices[0]!.message.content).toBe('from mock-llm');
    const stream = await openai.chat.completions.create({ model: 'direct', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('from mock-llm');
  });

  it('streams through the llmops relay, routed by its headers', async () => {
    const stream = await openai.chat.completions.create({ model: 'relayed', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('through the relay');
    expect(mock.counters('main').chat).toBe(1);
  });
});
