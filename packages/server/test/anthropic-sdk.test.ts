/**
 * `POST /v1/messages` through the official `@anthropic-ai/sdk` (key in `x-api-key`) and the AI SDK's
 * `@ai-sdk/anthropic`: the same governed call as the chat route, in Anthropic's shapes — whole,
 * streamed, with tool_use / tool_result, count_tokens, the models list, and errors in its shape.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const KEY = 'sk-team-x-0001';
const weather = { name: 'get_weather', description: 'weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

describe('Anthropic Messages through its clients', () => {
  let h: Harness;
  const tenants: (string | undefined)[] = [];
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: 'hello from the mock' } } }, { PGW_SERVER__KEYS: JSON.stringify({ [KEY]: 'team-x' }) }, [
      { onCallStart: (event) => void tenants.push(event.call.tenantId) },
    ]);
  });
  afterAll(() => h.close());
  const anthropic = (apiKey = KEY) => new Anthropic({ baseURL: h.url, apiKey, maxRetries: 0 });

  it('answers a whole message, the key read from x-api-key, system and sampling mapped', async () => {
    const message = await anthropic().messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, system: 'be brief', stop_sequences: ['END'], metadata: { user_id: 'u-7' }, messages: [{ role: 'user', content: 'say hello' }] });
    expect(message.type).toBe('message');
    expect(message.content).toEqual([{ type: 'text', text: 'hello from the mock' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(tenants.at(-1)).toBe('team-x');
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sent['messages']).toEqual([{ role: 'system', content: 'be brief' }, { role: 'user', content: 'say hello' }]);
    expect(sent).toMatchObject({ max_tokens: 64, stop: ['END'] });
  });

  it('streams the events its SDK assembles into the final message', async () => {
    const stream = anthropic().messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => void types.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'hello from the mock', citations: null }].map(({ citations: _, ...block }) => expect.objectContaining(block)));
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  });

  it('answers tool_use blocks and takes tool_result back', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }] }] });
    const asked = await anthropic().messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' }, messages: [{ role: 'user', content: 'weather in Paris?' }] });
    expect(asked.stop_reason).toBe('tool_use');
    expect(asked.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }]);
    const sentAsk = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sentAsk['tool_choice']).toEqual({ type: 'function', function: { name: 'get_weather' } });

    h.mock.setSource('main', { content: 'It is sunny' });
    const answered = await anthropic().messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      tools: [weather],
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        { role: 'assistant', content: asked.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    expect(answered.content).toEqual([{ type: 'text', text: 'It is sunny' }]);
    const sent = h.mock.requests('main').at(-1)!.body as { messages: unknown[] };
    expect(sent.messages).toEqual([
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
    ]);
  });

  it('streams a tool_use block as input_json_delta fragments', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'toolu_9', name: 'get_weather', arguments: { city: 'Oslo' } }] }] });
    const final = await anthropic().messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 64, tools: [weather], messages: [{ role: 'user', content: 'weather?' }] }).finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo' } })]);
    expect(final.stop_reason).toBe('tool_use');
    h.mock.setSource('main', { content: 'hello from the mock' });
  });

  it('counts tokens with the estimate the call is governed by', async () => {
    const counted = await anthropic().messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'a fairly short question about the weather' }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('lists the models in its shape', async () => {
    const page = await anthropic().models.list();
    expect(page.data.map((model) => model.type)).toContain('model');
  });

  it('answers errors in its shape: a 401 for a wrong key, a 400 naming the field, a server tool refused', async () => {
    const unauthorized = await anthropic('sk-wrong-key-0000').messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((unauthorized as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const before = h.mock.counters('main').chat;
    const bad = await anthropic().messages.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] } as never).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect(JSON.stringify((bad as InstanceType<typeof Anthropic.BadRequestError>).error)).toContain('max_tokens');
    const typed = await anthropic().messages.create({ model: 'm', max_tokens: 8, tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(typed).toBeInstanceOf(Anthropic.BadRequestError);
    expect(JSON.stringify((typed as InstanceType<typeof Anthropic.BadRequestError>).error)).toContain('tools[0].type');
    expect(h.mock.counters('main').chat).toBe(before);
  });

  it('@ai-sdk/anthropic: generateText, streamText and a tool step', async () => {
    const model = createAnthropic({ baseURL: `${h.url}/v1`, apiKey: KEY })('claude-sonnet-4-5');
    expect((await generateText({ model, prompt: 'say hello', maxRetries: 0 })).text).toBe('hello from the mock');
    let streamed = '';
    for await (const part of streamText({ model, prompt: 'say hello', maxRetries: 0 }).textStream) streamed += part;
    expect(streamed).toBe('hello from the mock');

    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'toolu_5', name: 'get_weather', arguments: { city: 'Rome' } }] }], content: 'Sunny in Rome' });
    const cities: string[] = [];
    const result = await generateText({
      model,
      prompt: 'weather in Rome?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      tools: { get_weather: tool({ description: 'weather of a city', inputSchema: jsonSchema<{ city: string }>(weather.input_schema), execute: async ({ city }) => (cities.push(city), 'sunny') }) },
    });
    expect(cities).toEqual(['Rome']);
    expect(result.text).toBe('Sunny in Rome');
    h.mock.setSource('main', { content: 'hello from the mock' });
  });
});
