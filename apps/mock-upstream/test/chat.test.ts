import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../src/index.js';
import { chatBody, jsonBody, postJson, sseData } from './helpers.js';

let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream({
    script: {
      sources: {
        good: {},
        thinker: { content: 'the answer is 42', reasoning: 'let me think' },
        scripted: {},
      },
    },
  });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const chatUrl = (source: string) => `${mock.baseUrl(source)}/chat/completions`;

describe('custom tool calls', () => {
  const step = { kind: 'tool_calls' as const, calls: [{ id: 'f1', name: 'weather', arguments: { city: 'Paris' } }, { id: 's1', name: 'shell', arguments: 'date', custom: true }] };

  it('answers a JSON body with a function and a custom call', async () => {
    mock.setSource('scripted', { steps: [step] });
    const body = await jsonBody(await postJson(chatUrl('scripted'), chatBody()));
    expect(body.choices[0].message.tool_calls).toEqual([
      { id: 'f1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
      { id: 's1', type: 'custom', custom: { name: 'shell', input: 'date' } },
    ]);
  });

  it('streams a custom call as one whole fragment', async () => {
    mock.setSource('scripted', { steps: [step] });
    const res = await postJson(chatUrl('scripted'), chatBody({ stream: true }));
    const fragments = sseData(await res.text())
      .filter((data) => data !== '[DONE]')
      .flatMap((data) => (JSON.parse(data).choices[0]?.delta?.tool_calls ?? []) as Array<Record<string, unknown>>);
    expect(fragments.filter((fragment) => fragment['index'] === 1)).toEqual([{ index: 1, id: 's1', type: 'custom', custom: { name: 'shell', input: 'date' } }]);
  });

  it('refuses a custom flag that is not a boolean, naming the call', () => {
    expect(() => mock.setSource('scripted', { steps: [{ ...step, calls: [{ name: 'shell', arguments: 'date', custom: 'yes' as never }] }] })).toThrow(/calls\[0\]\.custom: must be true or false/);
  });
});

describe('chat completions (JSON)', () => {
  it('answers in the OpenAI shape with default content and computed usage', async () => {
    const res = await postJson(chatUrl('good'), chatBody());
    expect(res.status).toBe(200);
    const body = await jsonBody(res);
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'mock-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello from good', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    });
    expect(body.choices[0].message).not.toHaveProperty('reasoning_content');
  });

  it('returns reasoning_content and reasoning_tokens when scripted', async () => {
    const body = await jsonBody(await postJson(chatUrl('thinker'), chatBody()));
    expect(body.choices[0].message).toEqual({ role: 'assistant', content: 'the answer is 42', refusal: null, reasoning_content: 'let me think' });
    expect(body.usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 7,
      total_tokens: 10,
      completion_tokens_details: { reasoning_tokens: 3 },
    });
  });

  it('rejects a body without messages with 400', async () => {
    const res = await postJson(chatUrl('good'), { model: 'x' });
    expect(res.status).toBe(400);
    expect((await jsonBody(res)).error.code).toBe('invalid_request');
  });

  it('reports scripted prompt-cache hits in the OpenAI or the DeepSeek wire form', async () => {
    mock.setSource('scripted', { usage: { prompt_tokens: 1000, completion_tokens: 10, cached_tokens: 800 } });
    expect((await jsonBody(await postJson(chatUrl('scripted'), chatBody()))).usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 10,
      total_tokens: 1010,
      prompt_tokens_details: { cached_tokens: 800 },
    });
    mock.setSource('scripted', { usage: { prompt_tokens: 1000, completion_tokens: 10, cached_tokens: 800, cache_form: 'deepseek' } });
    expect((await jsonBody(await postJson(chatUrl('scripted'), chatBody()))).usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 10,
      total_tokens: 1010,
      prompt_cache_hit_tokens: 800,
      prompt_cache_miss_tokens: 200,
    });
  });

  it('context_length_exceeded: a 400 in the OpenAI form naming the window', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'context_length_exceeded', contextWindow: 8192 }] });
    const res = await postJson(chatUrl('scripted'), chatBody());
    expect(res.status).toBe(400);
    const { error } = await jsonBody(res);
    expect(error).toMatchObject({ code: 'context_length_exceeded', type: 'invalid_request_error' });
    expect(error.message).toContain('maximum context length is 8192 tokens');
    expect(() => mock.setSource('scripted', { steps: [{ kind: 'context_length_exceeded', contextWindow: 0 }] })).toThrow(
      /steps\[0\]\.contextWindow: must be an integer > 0/,
    );
  });

  it('omits usage when the script says usage: false', async () => {
    mock.setSource('scripted', { usage: false });
    const body = await jsonBody(await postJson(chatUrl('scripted'), chatBody()));
    expect(body).not.toHaveProperty('usage');
  });
});

describe('chat completions (SSE)', () => {
  it('streams reasoning then content deltas, a usage chunk with empty choices, then [DONE]', async () => {
    const res = await postJson(chatUrl('thinker'), chatBody({ stream: true, stream_options: { include_usage: true } }));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = sseData(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data));
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');

    const deltas = chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0]);
    expect(deltas[0].delta.role).toBe('assistant');
    const reasoning = deltas.map((d) => d.delta.reasoning_content ?? '').join('');
    const content = deltas.map((d) => d.delta.content ?? '').join('');
    expect(reasoning).toBe('let me think');
    expect(content).toBe('the answer is 42');
    const firstContent = deltas.findIndex((d) => d.delta.content !== undefined);
    expect(deltas.slice(firstContent).every((d) => d.delta.reasoning_content === undefined)).toBe(true);
    expect(deltas.map((d) => d.finish_reason)).toEqual([...Array(deltas.length - 1).fill(null), 'stop']);

    const usageChunk = chunks.at(-1);
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 7 });
  });

  it('sends no usage chunk unless include_usage is asked for', async () => {
    const events = sseData(await (await postJson(chatUrl('good'), chatBody({ stream: true }))).text());
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(events.at(-1)).toBe('[DONE]');
  });

  it('truncate: ends the body after N chunks without finish_reason or [DONE]', async () => {
    mock.setSource('scripted', { content: 'one two three four', steps: [{ kind: 'truncate', afterTokens: 2 }] });
    const events = sseData(await (await postJson(chatUrl('scripted'), chatBody({ stream: true }))).text());
    expect(events).toHaveLength(2);
    expect(events.map((e) => JSON.parse(e).choices[0].delta.content).join('')).toBe('one two ');
    expect(events.every((e) => JSON.parse(e).choices[0].finish_reason === null)).toBe(true);
  });

  it('stall: sends N chunks, then keeps the socket open and silent', async () => {
    mock.setSource('scripted', { content: 'one two three', steps: [{ kind: 'stall', afterTokens: 1 }] });
    const res = await postJson(chatUrl('scripted'), chatBody({ stream: true }));
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"content":"one "');
    const next = reader.read();
    // Silence can only be shown over time; 200 ms is far beyond the loopback round trip.
    const silence = await Promise.race([next.then(() => 'data'), new Promise((r) => setTimeout(r, 200, 'silent'))]);
    expect(silence).toBe('silent');
    expect(mock.counters('scripted').inflight).toBe(1);
    await reader.cancel();
    await expect.poll(() => mock.counters('scripted').inflight).toBe(0);
  });

  it('malformed: sends an unparseable data line', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'malformed' }] });
    const events = sseData(await (await postJson(chatUrl('scripted'), chatBody({ stream: true }))).text());
    expect(() => JSON.parse(events[0]!)).toThrow();
    expect(events.at(-1)).toBe('[DONE]');
  });

  it('ttftMs and interTokenMs pace the chunks', async () => {
    mock.setSource('scripted', { content: 'a b c', ttftMs: 60, interTokenMs: 30 });
    const started = performance.now();
    await (await postJson(chatUrl('scripted'), chatBody({ stream: true }))).text();
    expect(performance.now() - started).toBeGreaterThanOrEqual(60 + 2 * 30 - 5);
  });
});

describe('scripted failures', () => {
  it('plays steps in order, then `otherwise`', async () => {
    mock.setSource('scripted', {
      steps: [{ kind: 'status', status: 503 }, { kind: 'rate_limit' }, { kind: 'ok' }],
      otherwise: { kind: 'status', status: 502 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await postJson(chatUrl('scripted'), chatBody())).status);
    expect(statuses).toEqual([503, 429, 200, 502, 502]);
  });

  it('status step sends Retry-After, retry-after-ms, extra headers and the body', async () => {
    mock.setSource('scripted', {
      steps: [{ kind: 'status', status: 429, retryAfter: '7', retryAfterMs: '1500', headers: { 'x-request-id': 'r1' }, body: 'slow down' }],
    });
    const res = await postJson(chatUrl('scripted'), chatBody());
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('retry-after-ms')).toBe('1500');
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await res.text()).toBe('slow down');
  });

  it("a status step's own Content-Type wins, e.g. an HTML page served with 200", async () => {
    const page = '<!doctype html><html><body>Bad gateway</body></html>';
    mock.setSource('scripted', { steps: [{ kind: 'status', status: 200, headers: { 'content-type': 'text/html' }, body: page }] });
    const res = await postJson(chatUrl('scripted'), chatBody());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe(page);
  });

  it('rate_limit carries its Retry-After', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'rate_limit', retryAfter: '3' }] });
    const res = await postJson(chatUrl('scripted'), chatBody());
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect((await jsonBody(res)).error.code).toBe('rate_limit_exceeded');
  });

  it('insufficient_quota answers 429 with the quota code and type', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'insufficient_quota' }] });
    const res = await postJson(chatUrl('scripted'), chatBody());
    expect(res.status).toBe(429);
    expect((await jsonBody(res)).error).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' });
  });

  it('truncate (JSON): the body ends before its Content-Length', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'truncate' }] });
    const res = await postJson(chatUrl('scripted'), chatBody());
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('malformed (JSON): unparseable, or parseable without choices', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'malformed' }, { kind: 'malformed', variant: 'wrong_shape' }] });
    const unparseable = await postJson(chatUrl('scripted'), chatBody());
    expect(unparseable.status).toBe(200);
    await expect(unparseable.json()).rejects.toThrow(SyntaxError);
    const wrongShape = await jsonBody(await postJson(chatUrl('scripted'), chatBody()));
    expect(wrongShape).not.toHaveProperty('choices');
  });

  it('latency step delays only that request', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'latency', ms: 120 }] });
    const started = performance.now();
    expect((await postJson(chatUrl('scripted'), chatBody())).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
  });
});
