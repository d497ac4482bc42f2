/**
 * toLanguageModel driven by the real `ai` 6 (`generateText`, `streamText`, `generateObject`, a tool
 * loop) over the project's loopback mock: every AI SDK call is one governed call.
 */
import { AllSourcesExhausted, GatewayUnavailableError, RequestRejectedError } from '@pgw/client';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toLanguageModel } from '../src/index.js';
import { mockClient, useMock } from './helpers.js';

const env = useMock();

describe('toLanguageModel under generateText', () => {
  it('answers through the governed call, with usage, finish reason and providerMetadata.pgw', async () => {
    const { client, recorder } = await mockClient(env.mock, { a: { content: 'hello there', usage: { prompt_tokens: 12, completion_tokens: 2, cached_tokens: 4 } } });
    try {
      const result = await generateText({
        model: toLanguageModel(client),
        system: 'be brief',
        prompt: 'say hello',
        temperature: 0.3,
        maxOutputTokens: 20,
        providerOptions: { pgw: { tenantId: 'acme', sessionId: 's-1', meta: { app: 'test' } } },
      });
      expect(result.text).toBe('hello there');
      expect(result.finishReason).toBe('stop');
      expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 2, inputTokenDetails: { cacheReadTokens: 4, noCacheTokens: 8 } });
      const pgw = result.providerMetadata?.['pgw'] as Record<string, unknown>;
      expect(pgw).toMatchObject({ source: 'a', cached: false, callStats: { attempts: 1, sourcesTried: ['a'] } });
      expect(typeof pgw['callId']).toBe('string');
      const sent = env.mock.requests('a').at(-1)!.body as Record<string, unknown>;
      expect(sent).toMatchObject({ temperature: 0.3, max_tokens: 20, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'say hello' }] });
      await recorder.flush();
      expect(recorder.rows.filter((row) => row.eventKind === 'attempt')).toEqual([
        expect.objectContaining({ tenantId: 'acme', sessionId: 's-1', logicalCallId: pgw['callId'], status: 'ok' }),
      ]);
    } finally {
      await client.close();
    }
  });

  it('sends an image part as an image_url content part, and warns that per-call headers are not sent', async () => {
    const { client } = await mockClient(env.mock, { a: {} });
    try {
      const result = await generateText({
        model: toLanguageModel(client),
        headers: { 'x-per-call': 'ignored' },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', image: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }] }],
      });
      const sent = env.mock.requests('a').at(-1)!;
      expect(sent.body).toMatchObject({ messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AQID' } }] }] });
      expect(sent.headers).not.toHaveProperty('x-per-call');
      expect(result.warnings).toContainEqual(expect.objectContaining({ type: 'unsupported', feature: 'headers' }));
    } finally {
      await client.close();
    }
  });

  it('a failure reaches AI SDK code as the library error itself, and the SDK does not retry it', async () => {
    const { client } = await mockClient(env.mock, { a: { steps: [{ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 }] } });
    try {
      const error = await generateText({ model: toLanguageModel(client), prompt: 'hi' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AllSourcesExhausted);
      // maxRetries defaults to 2 in the AI SDK: the governed call's 3 attempts are all there were.
      expect(env.mock.counters('a').chat).toBe(3);
    } finally {
      await client.close();
    }
  });

  it('a rejected request is a RequestRejectedError, sent once', async () => {
    const { client } = await mockClient(env.mock, { a: { steps: [{ kind: 'status', status: 400 }] } });
    try {
      await expect(generateText({ model: toLanguageModel(client), prompt: 'hi' })).rejects.toBeInstanceOf(RequestRejectedError);
      expect(env.mock.counters('a').chat).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('toLanguageModel under generateObject', () => {
  it('a zod schema runs the structured-output ladder of the source and the object is validated by the SDK', async () => {
    const { client } = await mockClient(env.mock, { a: { steps: [{ kind: 'ok' }], content: '```json\n{"city":"Paris","population":2100000}\n```' } });
    try {
      const { object } = await generateObject({
        model: toLanguageModel(client),
        schema: z.object({ city: z.string(), population: z.number() }),
        prompt: 'the capital of France',
      });
      expect(object).toEqual({ city: 'Paris', population: 2_100_000 });
      const sent = JSON.stringify(env.mock.requests('a').at(-1)!.body);
      expect(sent).toContain('population');
    } finally {
      await client.close();
    }
  });

  it('an answer that fails the schema is re-asked by the ladder, not by the SDK', async () => {
    const { client } = await mockClient(env.mock, { a: { content: '{"city": 7}' } });
    try {
      const error = await generateObject({ model: toLanguageModel(client), schema: z.object({ city: z.string() }), prompt: 'x' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'ResultInvalidError' });
      expect(env.mock.counters('a').chat).toBeGreaterThan(1);
    } finally {
      await client.close();
    }
  });
});

describe('toLanguageModel in a tool loop', () => {
  it('two steps under stopWhen: the tool call, its result sent back as a tool message, then the answer', async () => {
    const { client, recorder } = await mockClient(env.mock, {
      a: { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_1', name: 'weather', arguments: { city: 'Oslo' } }] }, { kind: 'ok' }], content: 'It is 3 degrees in Oslo.' },
    });
    try {
      const result = await generateText({
        model: toLanguageModel(client),
        prompt: 'weather in Oslo?',
        tools: {
          weather: tool({ description: 'the weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, celsius: 3 }) }),
        },
        stopWhen: stepCountIs(3),
      });
      expect(result.steps).toHaveLength(2);
      expect(result.steps[0]!.toolCalls).toEqual([expect.objectContaining({ toolCallId: 'call_1', toolName: 'weather', input: { city: 'Oslo' } })]);
      expect(result.text).toBe('It is 3 degrees in Oslo.');
      const second = env.mock.requests('a').at(-1)!.body as { messages: unknown[]; tools: unknown[] };
      expect(second.messages).toEqual([
        { role: 'user', content: 'weather in Oslo?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"city":"Oslo","celsius":3}' },
      ]);
      expect(second.tools).toEqual([expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'weather' }) })]);
      await recorder.flush();
      expect(recorder.rows.filter((row) => row.eventKind === 'attempt')).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('a JSON Schema tool and a forced tool choice reach the wire', async () => {
    const { client } = await mockClient(env.mock, { a: { steps: [{ kind: 'tool_calls', calls: [{ name: 'lookup', arguments: { q: 'x' } }] }] } });
    try {
      const result = await generateText({
        model: toLanguageModel(client),
        prompt: 'look it up',
        tools: { lookup: tool({ inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }) }) },
        toolChoice: { type: 'tool', toolName: 'lookup' },
      });
      expect(result.finishReason).toBe('tool-calls');
      expect(result.toolCalls).toEqual([expect.objectContaining({ toolName: 'lookup', input: { q: 'x' } })]);
      expect(env.mock.requests('a').at(-1)!.body).toMatchObject({ tool_choice: { type: 'function', function: { name: 'lookup' } } });
    } finally {
      await client.close();
    }
  });
});

describe('toLanguageModel under streamText', () => {
  it('tokens arrive as the upstream sends them, then the finish with usage and providerMetadata.pgw', async () => {
    const { client } = await mockClient(env.mock, { a: { content: 'one two three four', interTokenMs: 150 } });
    try {
      const result = streamText({ model: toLanguageModel(client), prompt: 'count' });
      const arrivals: Array<[string, number]> = [];
      const start = performance.now();
      for await (const delta of result.textStream) arrivals.push([delta, performance.now() - start]);
      expect(arrivals.map(([delta]) => delta).join('')).toBe('one two three four');
      expect(arrivals.length).toBeGreaterThanOrEqual(4);
      // Streamed, not buffered: the first token came well before the last one.
      expect(arrivals.at(-1)![1] - arrivals[0]![1]).toBeGreaterThan(300);
      expect(await result.finishReason).toBe('stop');
      expect((await result.usage).outputTokens).toBeGreaterThan(0);
      expect((await result.providerMetadata)?.['pgw']).toMatchObject({ source: 'a' });
    } finally {
      await client.close();
    }
  });

  it('the stream parts follow the specification: stream-start, text-start/delta/end, tool-input-*, tool-call, finish', async () => {
    const { client } = await mockClient(env.mock, { a: { steps: [{ kind: 'tool_calls', content: 'let me check', calls: [{ id: 'c1', name: 'weather', arguments: { city: 'Rome' } }] }] } });
    try {
      const model = toLanguageModel(client);
      const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], tools: [{ type: 'function', name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }] });
      const parts: Array<{ type: string }> = [];
      for await (const part of stream) parts.push(part);
      const types = parts.map((part) => part.type).filter((type, i, all) => type !== all[i - 1]);
      expect(types).toEqual(['stream-start', 'text-start', 'text-delta', 'text-end', 'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'finish']);
      expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({ toolCallId: 'c1', toolName: 'weather', input: '{"city":"Rome"}' });
      expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } });
    } finally {
      await client.close();
    }
  });

  it('reasoning deltas become a reasoning run before the text', async () => {
    const { client } = await mockClient(env.mock, { a: { reasoning: 'thinking hard', content: 'done' } });
    try {
      const result = streamText({ model: toLanguageModel(client), prompt: 'x' });
      expect(await result.text).toBe('done');
      expect(await result.reasoningText).toBe('thinking hard');
    } finally {
      await client.close();
    }
  });

  it('fails over to the next source before the first token', async () => {
    const { client } = await mockClient(env.mock, { down: { steps: [{ kind: 'status', status: 503 }] }, up: { content: 'from up' } });
    try {
      const result = streamText({ model: toLanguageModel(client), prompt: 'x' });
      expect(await result.text).toBe('from up');
      expect((await result.providerMetadata)?.['pgw']).toMatchObject({ source: 'up', callStats: { sourcesTried: ['down', 'up'] } });
      expect(env.mock.counters('down').chat).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('an abort mid-stream stops the governed call and frees the upstream exchange', async () => {
    const { client, recorder } = await mockClient(env.mock, { a: { content: 'a b c d e f g h', interTokenMs: 200 } });
    try {
      const controller = new AbortController();
      const errors: unknown[] = [];
      const result = streamText({ model: toLanguageModel(client), prompt: 'x', abortSignal: controller.signal, onError: ({ error }) => void errors.push(error) });
      const seen: string[] = [];
      for await (const delta of result.textStream) {
        seen.push(delta);
        if (seen.length === 2) controller.abort(new Error('user left'));
      }
      expect(seen.length).toBeLessThan(8);
      await expect.poll(() => env.mock.counters('a').inflight).toBe(0);
      await recorder.flush();
      expect(recorder.rows.filter((row) => row.eventKind === 'attempt').map((row) => row.error)).toEqual(['cancelled']);
    } finally {
      await client.close();
    }
  });

  it('a failure before the first token is an error part carrying the library error itself', async () => {
    const { client } = await mockClient(env.mock, { a: { steps: [{ kind: 'status', status: 401 }] } });
    try {
      const errors: unknown[] = [];
      const result = streamText({ model: toLanguageModel(client), prompt: 'x', onError: ({ error }) => void errors.push(error) });
      await result.consumeStream();
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(GatewayUnavailableError);
    } finally {
      await client.close();
    }
  });
});
