/**
 * The AI SDK's default OpenAI provider (`@ai-sdk/openai`, whose `openai(model)` speaks the Responses
 * API) pointed at the server: generateText, streamText, and a step that calls a tool.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responsesCheckingFetch } from './conformance/responses.js';
import { startHarness, type Harness } from './helpers.js';

describe('@ai-sdk/openai (Responses) against pgw serve', () => {
  let h: Harness;
  const routes: string[] = [];
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: 'hello from the mock' } } }, {}, [], { log: (line) => void routes.push(String(JSON.parse(line).route)) });
  });
  afterAll(() => h.close());
  const model = () => createOpenAI({ baseURL: `${h.url}/v1`, apiKey: 'unused', fetch: responsesCheckingFetch({ requests: 'sdk-built' }) })('gpt-4o-mini');

  it('generateText over /v1/responses', async () => {
    const before = h.mock.counters('main').chat;
    const result = await generateText({ model: model(), prompt: 'say hello', maxRetries: 0 });
    expect(result.text).toBe('hello from the mock');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.finishReason).toBe('stop');
    expect(h.mock.counters('main').chat).toBe(before + 1);
    expect(routes.at(-1)).toBe('/v1/responses');
  });

  it('streamText over /v1/responses', async () => {
    const result = streamText({ model: model(), prompt: 'say hello', maxRetries: 0 });
    let text = '';
    for await (const part of result.textStream) text += part;
    expect(text).toBe('hello from the mock');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('a tool step: the call, its result sent back, the final text', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }], content: 'It is sunny in Paris' });
    const cities: string[] = [];
    const result = await generateText({
      model: model(),
      prompt: 'weather in Paris?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      tools: {
        get_weather: tool({
          description: 'weather of a city',
          inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
          execute: async ({ city }) => {
            cities.push(city);
            return 'sunny';
          },
        }),
      },
    });
    expect(cities).toEqual(['Paris']);
    expect(result.text).toBe('It is sunny in Paris');
    const sent = h.mock.requests('main').at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(sent.messages[2]!.content).toMatch(/sunny/);
  });
});
