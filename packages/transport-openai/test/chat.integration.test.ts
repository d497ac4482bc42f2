import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { openaiCompatible } from '../src/index.js';
import { attemptContext, harness, mockAndHarness, scriptedSource } from './helpers.js';
import { completionJson, usageJson } from './spec-fixtures.js';

/** Counts TCP sockets created (either side) until stopped. */
function countSocketsOpened(): { readonly count: number; stop(): void } {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'TCPWRAP') count++;
    },
  }).enable();
  return {
    get count() {
      return count;
    },
    stop: () => hook.disable(),
  };
}

const messages = [{ role: 'user' as const, content: 'say hello please' }];
const env = mockAndHarness();

describe('chat, one JSON answer', () => {
  it('sends the composed body with the bearer key and reads content, reasoning and measured usage', async () => {
    const source = scriptedSource(env.mock,
      { content: 'the answer', reasoning: 'let me think', usage: { prompt_tokens: 11, completion_tokens: 22, reasoning_tokens: 5 } },
      { apiKey: 'sk-live-key', extraBody: { top_p: 0.9 } },
    );
    const ctx = attemptContext();
    const result = await env.transport.chat(source, { messages, sampling: { temperature: 0.1 }, reasoningEffort: 'high' }, ctx);

    expect(result).toEqual({
      content: 'the answer',
      reasoningContent: 'let me think',
      model: 'mock-model',
      usage: { promptTokens: 11, completionTokens: 22, reasoningTokens: 5, usageSource: 'measured' },
      thinkingObservation: 'observed',
      finishReason: 'stop',
    });
    expect(ctx.usages).toEqual([result.usage]);
    const [recorded] = env.mock.requests(source.name);
    expect(recorded?.headers['authorization']).toBe('Bearer sk-live-key');
    expect(recorded?.body).toEqual({
      top_p: 0.9,
      temperature: 0.1,
      model: 'mock-model',
      messages,
      stream: false,
      reasoning_effort: 'high',
    });
  });

  it('estimates usage when the upstream reports none, and sends no Authorization without a key', async () => {
    const source = scriptedSource(env.mock, { content: 'x'.repeat(40), usage: false });
    const ctx = attemptContext();
    const result = await env.transport.chat(source, { messages, sampling: {} }, ctx);
    expect(result.usage).toEqual({ promptTokens: 4, completionTokens: 10, usageSource: 'estimated' });
    expect(result.thinkingObservation).toBe('unknown');
    expect(ctx.usages).toEqual([]);
    expect(env.mock.requests(source.name)[0]?.headers).not.toHaveProperty('authorization');
  });

  it('reuses keep-alive connections for sequential calls, JSON and streamed', async () => {
    const source = scriptedSource(env.mock, {});
    const fresh = harness();
    const sockets = countSocketsOpened();
    try {
      for (let i = 0; i < 6; i++) {
        await fresh.chat(source, { messages, sampling: {}, stream: i % 2 === 1 }, attemptContext());
      }
    } finally {
      sockets.stop();
      await fresh.close();
    }
    // Each connection is two sockets (client and server side). Without reuse: 6 connections. undici may
    // open a second one while the first is still marked busy for a tick.
    expect(sockets.count / 2).toBeLessThanOrEqual(3);
    expect(env.mock.counters(source.name)).toMatchObject({ chat: 6, inflight: 0 });
  });
});

describe('chat, streamed', () => {
  it('forwards content and reasoning deltas, reports streamed usage before returning, and measures ttft', async () => {
    const source = scriptedSource(env.mock, { content: 'one two three', reasoning: 'hmm so', ttftMs: 30 });
    const ctx = attemptContext();
    const result = await env.transport.chat(source, { messages, sampling: {}, stream: true }, ctx);

    expect(result.content).toBe('one two three');
    expect(result.reasoningContent).toBe('hmm so');
    expect(result.usage.usageSource).toBe('measured');
    expect(ctx.usages).toEqual([result.usage]);
    expect(ctx.deltas).toEqual([
      { reasoningContent: 'hmm ' },
      { reasoningContent: 'so' },
      { content: 'one ' },
      { content: 'two ' },
      { content: 'three' },
    ]);
    expect(result.ttftMs).toBeGreaterThanOrEqual(25);
    expect(result.finishReason).toBe('stop');
    expect(env.mock.requests(source.name)[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(env.mock.counters(source.name).inflight).toBe(0);
  });

  it('reads a JSON answer when the upstream ignores the stream flag', async () => {
    const completion = JSON.parse(completionJson({ message: { content: 'not streamed' } }, { usage: usageJson(1, 2) })) as Record<string, unknown>;
    const source = scriptedSource(env.mock, { steps: [{ kind: 'status', status: 200, body: completion }] });
    const ctx = attemptContext();
    const result = await env.transport.chat(source, { messages, sampling: {}, stream: true }, ctx);
    expect(result).toMatchObject({ content: 'not streamed', usage: { promptTokens: 1, completionTokens: 2, usageSource: 'measured' } });
    expect(result.ttftMs).toBeUndefined();
    expect(ctx.usages).toHaveLength(1);
  });

  it('estimates usage of a stream without a usage chunk', async () => {
    const source = scriptedSource(env.mock, { content: 'a'.repeat(20), usage: false });
    const result = await env.transport.chat(source, { messages, sampling: {}, stream: true }, attemptContext());
    expect(result.usage).toEqual({ promptTokens: 4, completionTokens: 5, usageSource: 'estimated' });
  });
});

describe('lifecycle and options', () => {
  it('refuses calls after close(), and close() is idempotent', async () => {
    const model = openaiCompatible(scriptedSource(env.mock, {}).options);
    await model.close();
    await model.close();
    await expect(model.generate({ messages, sampling: {} }, attemptContext())).rejects.toThrow(/closed/);
  });

  it.each([
    [{ model: '' }, 'openaiCompatible(options.model)'],
    [{ stream: 'yes' }, 'openaiCompatible(options.stream)'],
    [{ maxResponseBytes: 0 }, 'openaiCompatible(options.maxResponseBytes)'],
    [{ maxResponseBytes: 1.5 }, 'openaiCompatible(options.maxResponseBytes)'],
    [{ profile: 'nope' }, 'openaiCompatible(options.profile)'],
    [{ profile: { name: 'x' } }, 'openaiCompatible(options.profile)'],
    [{ dispatcher: {} }, 'openaiCompatible(options.dispatcher)'],
    [{ extraBody: [] }, 'openaiCompatible(options.extraBody)'],
    [{ strictSchema: 'no' }, 'openaiCompatible(options.strictSchema)'],
    [{ effortMap: { max: 'huge' } }, 'openaiCompatible(options.effortMap)'],
    [{ effortMap: 'max:high' }, 'openaiCompatible(options.effortMap)'],
    [{ liveness: { firstTokenMs: -1 } }, 'openaiCompatible(options.liveness.firstTokenMs)'],
    [{ liveness: { interTokenMs: Number.NaN } }, 'openaiCompatible(options.liveness.interTokenMs)'],
    [{ liveness: { totalMs: Number.POSITIVE_INFINITY } }, 'openaiCompatible(options.liveness.totalMs)'],
    [{ baseUrl: 'not a url' }, 'openaiCompatible(options.baseUrl)'],
    [{ headers: { host: 'x' } }, 'openaiCompatible(options.headers)'],
    [{ query: { v: 1 } }, 'openaiCompatible(options.query)'],
    [{ apiKey: 'sk-\n' }, 'openaiCompatible(options.apiKey)'],
  ])('rejects %o naming %s', (options, key) => {
    expect(() => openaiCompatible({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', ...(options as object) })).toThrow(key);
  });

  it('takes managed keys and native json_schema from its profile, built-in or custom', () => {
    const base = { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' };
    expect(openaiCompatible(base)).toMatchObject({
      specificationVersion: 'pgw-model-v1',
      provider: 'openai-compatible',
      modelId: 'm',
      managedKeys: ['reasoning_effort'],
      capabilities: { jsonSchema: true, streaming: true },
    });
    expect(openaiCompatible({ ...base, profile: 'qwen', stream: false }).capabilities).toEqual({ jsonSchema: false, streaming: false });
    const custom = { name: 'mine', managedKeys: ['think'], applyEffort: () => {}, supportsJsonSchema: true };
    expect(openaiCompatible({ ...base, profile: custom }).managedKeys).toEqual(['think']);
  });
});

describe('embed', () => {
  it('returns one vector per text in input order with measured usage', async () => {
    const source = scriptedSource(env.mock, { embeddingDim: 4 }, { extraBody: { dimensions: 4 } });
    const ctx = attemptContext();
    const result = await env.transport.embed(source, { texts: ['alpha', 'beta gamma', 'delta'] }, ctx);
    expect(result.vectors).toHaveLength(3);
    expect(result.vectors.every((v) => v.length === 4)).toBe(true);
    const again = await env.transport.embed(source, { texts: ['delta', 'alpha'] }, attemptContext());
    expect(again.vectors).toEqual([result.vectors[2], result.vectors[0]]);
    expect(result.usage).toEqual({ promptTokens: 4, completionTokens: 0, usageSource: 'measured' });
    expect(ctx.usages).toEqual([result.usage]);
    expect(result.model).toBe('mock-model');
    expect(env.mock.requests(source.name)[0]?.body).toEqual({ dimensions: 4, model: 'mock-model', input: ['alpha', 'beta gamma', 'delta'] });
  });
});
