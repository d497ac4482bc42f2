import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('tools and structured output through the openai SDK', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('returns the tool calls the model asked for, and sends tools and tool_choice upstream in the wire shape', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }] });
    const answer = await h.openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: [weather],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const call = answer.choices[0]!.message.tool_calls![0]!;
    expect(answer.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sent['tools']).toEqual([weather]);
    expect(sent['tool_choice']).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('sends a tool conversation back (assistant tool_calls + tool message)', async () => {
    h.mock.setSource('main', { content: 'It is sunny' });
    const answer = await h.openai().chat.completions.create({
      model: 'gpt-4o-mini',
      tools: [weather],
      messages: [
        { role: 'user', content: 'weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('It is sunny');
    const sent = h.mock.requests('main').at(-1)!.body as { messages: { role: string }[] };
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('answers a custom tool call as a custom call, whole and streamed', async () => {
    // No tools offered: the call is passed on as the model sent it (an offered tool is a function tool).
    const script = { steps: [{ kind: 'tool_calls' as const, calls: [{ id: 'call_c', name: 'run_sql', arguments: 'SELECT 1', custom: true }] }] };
    h.mock.setSource('main', script);
    const answer = await h.openai().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'query' }] });
    expect(answer.choices[0]!.message.tool_calls).toEqual([{ id: 'call_c', type: 'custom', custom: { name: 'run_sql', input: 'SELECT 1' } }]);

    h.mock.setSource('main', script);
    const chunks = await h.openai().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'query' }], stream: true });
    const calls = [];
    for await (const chunk of chunks) calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(calls).toEqual([{ index: 0, id: 'call_c', type: 'custom', custom: { name: 'run_sql', input: 'SELECT 1' } }]);
  });

  it('offers a custom tool upstream as one, and answers its call as a custom call', async () => {
    const format = { type: 'grammar' as const, grammar: { syntax: 'lark' as const, definition: 'start: /.+/' } };
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_p', name: 'apply_patch', arguments: '*** Begin Patch', custom: true }] }] });
    const answer = await h.openai().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'patch it' }],
      tools: [weather, { type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch', format } }],
      tool_choice: { type: 'custom', custom: { name: 'apply_patch' } },
    });
    expect(answer.choices[0]!.message.tool_calls).toEqual([{ id: 'call_p', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } }]);
    const sent = h.mock.requests('main').at(-1)!.body as Record<string, unknown>;
    expect(sent['tools']).toEqual([
      { type: 'function', function: { name: 'get_weather', description: weather.function.description, parameters: weather.function.parameters } },
      { type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch', format } },
    ]);
    expect(sent['tool_choice']).toEqual({ type: 'custom', custom: { name: 'apply_patch' } });
  });

  it('streams tool calls in fragments the SDK reassembles', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } }] }] });
    const stream = h.openai().chat.completions.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'weather?' }], tools: [weather] });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Oslo' });
  });

  it('answers response_format json_schema with the validated value', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'], additionalProperties: false };
    const server = await startHarness({ sources: { main: { content: 'Here you are: {"name":"Ada","age":36}' } } });
    try {
      const answer = await server.openai().chat.completions.parse({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'who?' }],
        response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } },
      });
      expect(answer.choices[0]!.message.parsed).toEqual({ name: 'Ada', age: 36 });
    } finally {
      await server.close();
    }
  });

  it('refuses a structured answer that fails its schema after the re-asks (502), not a wrong 200', async () => {
    const schema = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] };
    const error = await h
      .openai()
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'age?' }], response_format: { type: 'json_schema', json_schema: { name: 'age', schema } } })
      .catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(502);
  });
});
