/**
 * Tool calling through `fromEnv` against a third-party OpenAI-compatible server, `@dwmkerr/mock-llm`
 * (non-streamed: it cannot stream a tool call): a chat answered with a tool call, and a runTools
 * loop whose tool result leads to the final answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '@pgw/client';
import { startMockLlm, type MockLlmServer } from '../src/index.js';

const TOOL_CALL = { id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
const completion = (message: object, finishReason: string) =>
  JSON.stringify({
    id: 'chatcmpl-tools',
    object: 'chat.completion',
    created: 1,
    model: 'interop-model',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
  });
const ASK = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];
const TOOLS = {
  get_weather: { description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

let mockLlm: MockLlmServer;
beforeAll(async () => {
  mockLlm = await startMockLlm({
    // The last matching rule wins: the tool call first, the answer once a tool message is present.
    rules: [
      { path: '/v1/chat/completions', match: '@', response: { status: 200, content: completion({ content: null, tool_calls: [TOOL_CALL] }, 'tool_calls') } },
      {
        path: '/v1/chat/completions',
        match: "contains(body.messages[*].role, 'tool')",
        response: { status: 200, content: completion({ content: 'It is sunny in Paris.' }, 'stop') },
      },
    ],
  });
});
afterAll(async () => {
  await mockLlm?.stop();
});

async function withClient(run: (client: GatewayClient) => Promise<void>): Promise<void> {
  const scope = 'IOTOOLS';
  const env = {
    PGW_CACHE_BACKEND: 'none',
    [`${scope}__SOURCE__UP__BASE_URL`]: `${mockLlm.url}/v1`,
    [`${scope}__SOURCE__UP__MODEL`]: 'interop-model',
    [`${scope}__SOURCE__UP__API_KEY`]: 'sk-interop-test',
    [`${scope}__SOURCE__UP__STREAM`]: 'false',
  };
  const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
  try {
    await run(client);
  } finally {
    await client.close();
  }
}

describe('tool calls against @dwmkerr/mock-llm', () => {
  it('chat: reads the tool call, its parsed input and finish reason', async () => {
    await withClient(async (client) => {
      const response = await client.chat(ASK, { tools: TOOLS });
      expect(response.finishReason).toBe('tool_calls');
      expect(response.toolCalls).toEqual([{ id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}', input: { city: 'Paris' } }]);
      expect(response.usage).toMatchObject({ promptTokens: 12, usageSource: 'measured' });
    });
  });

  it('runTools: the tool result goes back as a tool message and leads to the final answer', async () => {
    await withClient(async (client) => {
      const inputs: unknown[] = [];
      const tools = { get_weather: { ...TOOLS.get_weather, execute: (input: unknown) => (inputs.push(input), { sky: 'sunny' }) } };
      const run = await client.runTools(ASK, { tools });
      expect(run.finishedBy).toBe('answer');
      expect(run.response.content).toBe('It is sunny in Paris.');
      expect(inputs).toEqual([{ city: 'Paris' }]);
      expect(run.steps).toHaveLength(2);
      expect(run.usage).toMatchObject({ promptTokens: 24, completionTokens: 10, usageSource: 'measured' });
    });
  });
});
