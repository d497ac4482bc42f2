/**
 * Against software nobody here wrote (apps/interop): the real `@ai-sdk/openai-compatible` provider
 * wrapped by fromLanguageModel against `@dwmkerr/mock-llm`, `ai` 6 driving toLanguageModel over a
 * client whose source is mock-llm, and one client mixing an `openaiCompatible` source and an AI SDK
 * source, failing over between them.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { RequestRejectedError } from '@pgw/client';
import { startAnthropicWire, startMockLlm, type AnthropicWireServer, type MockLlmServer } from '@pgw/interop';
import { openaiCompatible } from '@pgw/transport-openai';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromLanguageModel, toLanguageModel } from '../src/index.js';
import { mockClient, useMock } from './helpers.js';

const REJECTION = { message: "Invalid 'messages': scripted rejection.", type: 'invalid_request_error', code: 'invalid_value' };
const ECHO =
  '{"id":"chatcmpl-echo","object":"chat.completion","created":1,"model":"{{jmes request body.model}}","choices":[{"index":0,"message":{"role":"assistant","content":"echo: {{jmes request body.messages[-1].content}}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":3,"total_tokens":5}}';

const env = useMock();
let mockLlm: MockLlmServer;
let wire: AnthropicWireServer;

beforeAll(async () => {
  [mockLlm, wire] = await Promise.all([
    startMockLlm({
      streaming: { chunkSize: 4, chunkIntervalMs: 5 },
      rules: [
        { path: '/v1/chat/completions', match: '@', response: { status: 200, content: ECHO } },
        { path: '/v1/chat/completions', match: "contains(body.messages[-1].content, 'bad-request')", response: { status: 400, content: JSON.stringify({ error: REJECTION }) } },
      ],
    }),
    startAnthropicWire(),
  ]);
});
afterAll(async () => {
  await Promise.all([mockLlm?.stop(), wire?.close()]);
});

const viaMockLlm = (streaming = true) =>
  fromLanguageModel(createOpenAICompatible({ name: 'mock-llm', baseURL: `${mockLlm.url}/v1`, includeUsage: true })('interop-model'), { capabilities: { streaming } });

describe('@ai-sdk/openai-compatible against @dwmkerr/mock-llm, governed', () => {
  it.each([true, false])('chat and chatStream through a fromLanguageModel source (streaming: %s)', async (streaming) => {
    const { client } = await mockClient(env.mock, {}, { sources: [{ name: 'mockllm', model: viaMockLlm(streaming) }] });
    try {
      expect(await client.chat([{ role: 'user', content: 'hello there' }])).toMatchObject({ content: 'echo: hello there', source: 'mockllm' });
      const stream = client.chatStream([{ role: 'user', content: 'stream me' }]);
      const deltas: string[] = [];
      for await (const delta of stream) deltas.push(delta.content ?? '');
      expect(deltas.join('')).toBe('echo: stream me');
      if (streaming) expect(deltas.length).toBeGreaterThan(2);
    } finally {
      await client.close();
    }
  });

  it('an error inside its 200 stream is a RequestRejectedError, sent once', async () => {
    const { client } = await mockClient(env.mock, {}, { sources: [{ name: 'mockllm', model: viaMockLlm() }] });
    try {
      const error = await client.chat([{ role: 'user', content: 'bad-request please' }]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestRejectedError);
    } finally {
      await client.close();
    }
  });
});

describe('ai 6 over toLanguageModel over mock-llm', () => {
  it('generateText and streamText', async () => {
    const { client } = await mockClient(env.mock, {}, { sources: [{ name: 'mockllm', baseUrl: `${mockLlm.url}/v1`, model: 'interop-model' }] });
    try {
      const model = toLanguageModel(client);
      expect((await generateText({ model, prompt: 'from generateText' })).text).toBe('echo: from generateText');
      const result = streamText({ model, prompt: 'from streamText' });
      const deltas: string[] = [];
      for await (const delta of result.textStream) deltas.push(delta);
      expect(deltas.join('')).toBe('echo: from streamText');
      expect(deltas.length).toBeGreaterThan(2);
    } finally {
      await client.close();
    }
  });
});

describe('one client mixing an openaiCompatible source and an AI SDK source', () => {
  const claude = () => fromLanguageModel(createAnthropic({ baseURL: wire.baseUrl, apiKey: 'sk-ant-mixed' })('claude-sonnet-4-5'), { secrets: ['sk-ant-mixed'] });

  it('fails over from the openaiCompatible source to the Anthropic one, under chat and streamText', async () => {
    env.mock.setSource('openai', { steps: [{ kind: 'status', status: 503 }, { kind: 'status', status: 503 }] });
    const { client } = await mockClient(env.mock, {}, {
      sources: [
        { name: 'openai', model: openaiCompatible({ baseUrl: env.mock.baseUrl('openai'), model: 'gpt-4o-mini' }) },
        { name: 'claude', model: claude() },
      ],
    });
    try {
      wire.script({ kind: 'message', text: 'from claude' }, { kind: 'message', text: 'streamed from claude' });
      expect(await client.chat([{ role: 'user', content: 'hi' }])).toMatchObject({ content: 'from claude', source: 'claude', callStats: { sourcesTried: ['openai', 'claude'] } });
      const result = streamText({ model: toLanguageModel(client), prompt: 'hi' });
      expect(await result.text).toBe('streamed from claude');
      expect((await result.providerMetadata)?.['pgw']).toMatchObject({ source: 'claude', callStats: { sourcesTried: ['openai', 'claude'] } });
    } finally {
      await client.close();
    }
  });

  it('fails over from the Anthropic source (529 overloaded) to the openaiCompatible one', async () => {
    env.mock.setSource('openai', { content: 'from openai' });
    const { client } = await mockClient(env.mock, {}, {
      sources: [
        { name: 'claude', model: claude() },
        { name: 'openai', model: openaiCompatible({ baseUrl: env.mock.baseUrl('openai'), model: 'gpt-4o-mini' }) },
      ],
    });
    try {
      wire.script({ kind: 'error', status: 529, type: 'overloaded_error' });
      expect(await client.chat([{ role: 'user', content: 'hi' }])).toMatchObject({ content: 'from openai', source: 'openai', callStats: { sourcesTried: ['claude', 'openai'] } });
    } finally {
      await client.close();
    }
  });
});
