/**
 * `POST /v1/responses` through the official openai SDK (`client.responses`): the same governed call
 * as the chat route, in the Responses API's shapes — whole, streamed as typed events, with function
 * tools both ways and `text.format` json_schema.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const weather = { type: 'function' as const, name: 'get_weather', description: 'weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false };

describe('the Responses API through the openai SDK', () => {
  let h: Harness;
  const tenants: (string | undefined)[] = [];
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: 'hello from the mock' } } }, { PGW_SERVER__KEYS: JSON.stringify({ 'sk-team-r-0001': 'team-r' }) }, [
      { onCallStart: (event) => void tenants.push(event.call.tenantId) },
    ]);
  });
  afterAll(() => h.close());
  const openai = () => h.openai('sk-team-r-0001');

  it('answers a whole response: output text, usage, the governed extras, instructions as the system message', async () => {
    const { data, response } = await openai()
      .responses.create({ model: 'gpt-4o-mini', instructions: 'be brief', input: 'say hello', temperature: 0.3, max_output_tokens: 50, metadata: { ticket: 't-1' } })
      .withResponse();
    expect(data.object).toBe('response');
    expect(data.id).toMatch(/^resp_/);
    expect(data.status).toBe('completed');
    expect(data.output_text).toBe('hello from the mock');
    expect(data.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hello from the mock' }] });
    expect(data.usage!.total_tokens).toBe(data.usage!.input_tokens + data.usage!.output_tokens);
    expect(data.instructions).toBe('be brief');
    expect(data.metadata).toEqual({ ticket: 't-1' });
    expect(response.headers.get('x-pgw-source')).toBe('main');
    expect(response.headers.get('x-pgw-call-id')).toMatch(/.+/);
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sent['messages']).toEqual([{ role: 'system', content: 'be brief' }, { role: 'user', content: 'say hello' }]);
    expect(sent).toMatchObject({ temperature: 0.3, max_tokens: 50 });
    expect(sent['metadata']).toBeUndefined();
    expect(tenants.at(-1)).toBe('team-r');
  });

  it('streams typed events with increasing sequence numbers, ending in response.completed', async () => {
    const stream = await openai().responses.create({ model: 'gpt-4o-mini', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], stream: true });
    const events: { type: string; sequence_number: number }[] = [];
    let text = '';
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe('hello from the mock');
    const types = events.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output_text ?? completed.response.output[0]).toBeDefined();
    expect(completed.response.output[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'hello from the mock' }] });
    expect(completed.response.usage!.output_tokens).toBeGreaterThan(0);
  });

  it('ends a stream that fails after its first token with response.failed, never response.completed', async () => {
    h.mock.setSource('main', { content: 'one two three four five', steps: [{ kind: 'truncate', afterTokens: 2 }] });
    const stream = await openai().responses.create({ model: 'gpt-4o-mini', input: 'count', stream: true });
    const types: string[] = [];
    let failed: OpenAI.Responses.ResponseFailedEvent | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed') failed = event;
    }
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.failed');
    expect(types).not.toContain('response.completed');
    expect(failed!.response).toMatchObject({ status: 'failed', error: { code: expect.any(String), message: expect.any(String) } });
    h.mock.setSource('main', { content: 'hello from the mock' });
  });

  it('the SDK stream helper reassembles the final response', async () => {
    const final = await openai().responses.stream({ model: 'gpt-4o-mini', input: 'hi' }).finalResponse();
    expect(final.output_text).toBe('hello from the mock');
  });

  it('answers function calls as function_call items, and takes their outputs back', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }] });
    const asked = await openai().responses.create({ model: 'gpt-4o-mini', input: 'weather in Paris?', tools: [weather], tool_choice: { type: 'function', name: 'get_weather' } });
    const call = asked.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'get_weather', status: 'completed' });
    expect(JSON.parse((call as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: 'Paris' });
    const sentTools = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sentTools['tools']).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'weather of a city', parameters: weather.parameters } }]);
    expect(sentTools['tool_choice']).toEqual({ type: 'function', function: { name: 'get_weather' } });

    h.mock.setSource('main', { content: 'It is sunny' });
    const answered = await openai().responses.create({
      model: 'gpt-4o-mini',
      tools: [weather],
      input: [{ role: 'user', content: 'weather in Paris?' }, call as OpenAI.Responses.ResponseFunctionToolCall, { type: 'function_call_output', call_id: 'call_1', output: 'sunny' }],
    });
    expect(answered.output_text).toBe('It is sunny');
    const sent = h.mock.requests('main').at(-1)!.body as { messages: unknown[] };
    expect(sent.messages).toEqual([
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ]);
  });

  it('streams a function call as an item with argument deltas', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } }] }] });
    const final = await openai().responses.stream({ model: 'gpt-4o-mini', input: 'weather?', tools: [weather] }).finalResponse();
    const call = final.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ call_id: 'call_9', name: 'get_weather' });
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Oslo' });
  });

  it('offers a custom tool upstream, answers its call as a custom_tool_call item, and takes its output back', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_p', name: 'apply_patch', arguments: '*** Begin Patch', custom: true }] }] });
    const patch = { type: 'custom' as const, name: 'apply_patch', description: 'Apply a patch', format: { type: 'text' as const } };
    const asked = await openai().responses.create({ model: 'gpt-4o-mini', input: 'patch it', tools: [patch], tool_choice: { type: 'custom', name: 'apply_patch' } });
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sent['tools']).toEqual([{ type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch', format: { type: 'text' } } }]);
    expect(sent['tool_choice']).toEqual({ type: 'custom', custom: { name: 'apply_patch' } });
    const call = asked.output.find((item) => item.type === 'custom_tool_call')!;
    expect(call).toMatchObject({ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch' });

    h.mock.setSource('main', { content: 'patched' });
    await openai().responses.create({ model: 'gpt-4o-mini', tools: [patch], previous_response_id: asked.id, input: [{ type: 'custom_tool_call_output', call_id: 'call_p', output: 'done' }] });
    expect((h.mock.requests('main').at(-1)!.body as { messages: unknown[] }).messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_p', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } }] },
      { role: 'tool', tool_call_id: 'call_p', content: 'done' },
    ]);
  });

  it('answers text.format json_schema with the validated value', async () => {
    h.mock.setSource('main', { content: 'Here you are: {"name":"Ada","age":36}' });
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'], additionalProperties: false };
    const answer = await openai().responses.create({ model: 'gpt-4o-mini', input: 'who?', text: { format: { type: 'json_schema', name: 'person', schema, strict: true } } });
    expect(JSON.parse(answer.output_text)).toEqual({ name: 'Ada', age: 36 });
  });

  it('refuses what it cannot honour with a 400 naming the field, nothing sent upstream', async () => {
    const before = h.mock.counters('main').chat;
    const refusals: [Record<string, unknown>, string][] = [
      [{ input: 'hi', tools: [{ type: 'web_search', name: 'x' }, { type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'function', name: 'f'.repeat(63) }] }] }, 'tools[1].tools[0].name'],
      [{ input: 'hi', previous_response_id: 'resp_123' }, 'previous_response_id'],
      [{ input: 'hi', background: true }, 'background'],
      [{ input: [{ type: 'web_search_call', id: 'x' }] }, 'input[0]'],
      [{ input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] }, 'input[0].content[0]'],
      [{ input: 'hi', tools: [weather, weather] }, 'tools[1].name'],
    ];
    for (const [body, param] of refusals) {
      const error = await openai()
        .responses.create({ model: 'gpt-4o-mini', ...body } as never)
        .then(() => undefined, (failed: unknown) => failed);
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param, JSON.stringify(body)).toBe(param);
    }
    expect(h.mock.counters('main').chat).toBe(before);
  });

  it('needs the key like every /v1 route', async () => {
    const error = await h.openai('sk-wrong-key-0000').responses.create({ model: 'gpt-4o-mini', input: 'hi' }).then(() => undefined, (failed: unknown) => failed);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
