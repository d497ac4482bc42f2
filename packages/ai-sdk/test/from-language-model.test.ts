/**
 * fromLanguageModel beyond the contract suite: failure classification through the real
 * `@ai-sdk/openai-compatible` provider against the loopback mock, the stream liveness limits, and the
 * V2 and V4 shapes (in-process models of those specifications: logic only).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV2, LanguageModelV2StreamPart, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { ContextLengthExceededError, RequestRejectedError, SourceDeadError, TransientError, type ChatRequest } from '@pgw/core';
import { startAnthropicWire } from '@pgw/interop';
import { createAnthropic } from '@ai-sdk/anthropic';
import { recordingAttempt } from '@pgw/testkit';
import { describe, expect, it } from 'vitest';
import { fromLanguageModel, type LanguageModelV4 } from '../src/index.js';
import { useMock } from './helpers.js';

const env = useMock();
const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], sampling: {} };

describe('failures of the real @ai-sdk/openai-compatible provider', () => {
  const model = (source: string) =>
    fromLanguageModel(createOpenAICompatible({ name: 'mock', baseURL: env.mock.baseUrl(source), apiKey: 'sk-mock-1', includeUsage: true })('m'), { secrets: ['sk-mock-1'] });
  const cases: Array<[string, object, abstract new (...args: never[]) => Error, Record<string, unknown>]> = [
    ['429 with retry-after', { kind: 'rate_limit', retryAfter: '3' }, TransientError, { transientKind: 'rate_limited', retryAfterMs: 3000, statusCode: 429 }],
    ['429 with retry-after-ms', { kind: 'status', status: 429, retryAfterMs: '1500' }, TransientError, { transientKind: 'rate_limited', retryAfterMs: 1500 }],
    ['429 of exhausted quota', { kind: 'insufficient_quota' }, SourceDeadError, { statusCode: 429 }],
    ['503', { kind: 'status', status: 503 }, TransientError, { transientKind: 'server_error', statusCode: 503 }],
    ['401', { kind: 'status', status: 401 }, SourceDeadError, { statusCode: 401 }],
    ['400 context length', { kind: 'context_length_exceeded', contextWindow: 4096 }, ContextLengthExceededError, { statusCode: 400 }],
    ['422', { kind: 'status', status: 422 }, RequestRejectedError, { statusCode: 422 }],
  ];
  it.each(cases)('%s', async (_name, step, category, fields) => {
    env.mock.setSource('f', { steps: [step as never] });
    const error = await model('f').generate(REQUEST, recordingAttempt()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(category);
    expect(error).toMatchObject({ sourceName: 'contract-source', ...fields });
  });

  it('a custom tool cannot be said to an AI SDK model: a RequestRejectedError naming it, nothing sent', async () => {
    env.mock.setSource('f', { content: 'unused' });
    const before = env.mock.counters('f').chat;
    const request: ChatRequest = { ...REQUEST, tools: [{ name: 'apply_patch', type: 'custom' }] };
    const error = await model('f').generate(request, recordingAttempt()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestRejectedError);
    expect((error as Error).message).toContain("custom tools (tool 'apply_patch')");
    expect(env.mock.counters('f').chat).toBe(before);
  });

  it('a truncated stream (no finish, no [DONE]) is a TransientError of kind truncated: retried, never cached', async () => {
    env.mock.setSource('f', { content: 'one two three', steps: [{ kind: 'truncate', afterTokens: 1 }] });
    const error = await model('f').generate(REQUEST, recordingAttempt()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'truncated' });
  });
});

describe('the stream liveness limits', () => {
  it('a stream that never sends its first token is a TransientError of kind stalled_stream', async () => {
    const wire = await startAnthropicWire();
    try {
      wire.script({ kind: 'hang' });
      const model = fromLanguageModel(createAnthropic({ baseURL: wire.baseUrl, apiKey: 'k' })('claude-haiku-4-5'), { liveness: { firstTokenMs: 200 } });
      const error = await model.generate(REQUEST, recordingAttempt()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransientError);
      expect(error).toMatchObject({ transientKind: 'stalled_stream' });
      await expect.poll(() => wire.inflight).toBe(0);
    } finally {
      await wire.close();
    }
  });

  it('liveness.totalMs caps a live stream below the attempt timeout, as in @pgw/transport-openai', async () => {
    env.mock.setSource('t', { content: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), interTokenMs: 50 });
    const model = fromLanguageModel(createOpenAICompatible({ name: 'mock', baseURL: env.mock.baseUrl('t'), apiKey: 'k' })('m'), { liveness: { totalMs: 300, interTokenMs: 1000 } });
    const error = await model.generate(REQUEST, recordingAttempt()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'timeout' });
  });

  it('checks each liveness bound as @pgw/transport-openai does', () => {
    expect(() => fromLanguageModel(v2Model([]), { liveness: { firstTokenMs: -1 } })).toThrow('fromLanguageModel(options.liveness.firstTokenMs)');
    expect(() => fromLanguageModel(v2Model([]), { liveness: { totalMs: Number.POSITIVE_INFINITY } })).toThrow(RangeError);
  });
});

/** A V2 model answering one text, recording the options it was called with. */
function v2Model(calls: unknown[]): LanguageModelV2 {
  return {
    specificationVersion: 'v2',
    provider: 'v2-test',
    modelId: 'v2-model',
    supportedUrls: {},
    async doGenerate(options) {
      calls.push(options);
      return {
        content: [{ type: 'text', text: 'v2 answer' }, { type: 'tool-call', toolCallId: 't1', toolName: 'f', input: '{"a":1}' }],
        finishReason: 'tool-calls',
        usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10, reasoningTokens: 1, cachedInputTokens: 2 },
        warnings: [],
      };
    },
    async doStream(options) {
      calls.push(options);
      const parts: LanguageModelV2StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: '0' },
        { type: 'text-delta', id: '0', delta: 'v2 ' },
        { type: 'text-delta', id: '0', delta: 'stream' },
        { type: 'text-end', id: '0' },
        { type: 'finish', finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 } },
      ];
      return { stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) };
    },
  };
}

describe('the V2 shape', () => {
  it('flat usage, a string finish reason, tool calls; streaming through doStream', async () => {
    const calls: unknown[] = [];
    const blocking = fromLanguageModel(v2Model(calls), { capabilities: { streaming: false } });
    const result = await blocking.generate({ ...REQUEST, sampling: { max_tokens: 9, temperature: 0.5, stop: 'END' } }, recordingAttempt());
    expect(result).toMatchObject({
      content: 'v2 answer',
      finishReason: 'tool_calls',
      toolCalls: [{ id: 't1', name: 'f', arguments: '{"a":1}' }],
      usage: { promptTokens: 7, completionTokens: 3, reasoningTokens: 1, cachedPromptTokens: 2, usageSource: 'measured' },
    });
    expect(calls[0]).toMatchObject({ maxOutputTokens: 9, temperature: 0.5, stopSequences: ['END'], prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    const attempt = recordingAttempt();
    const streamed = await fromLanguageModel(v2Model(calls)).stream!(REQUEST, attempt);
    expect(attempt.deltas.map((d) => d.content)).toEqual(['v2 ', 'stream']);
    expect(streamed).toMatchObject({ content: 'v2 stream', finishReason: 'stop', usage: { promptTokens: 4, completionTokens: 2 } });
  });
});

describe('the V4 shape', () => {
  it('file data tagged { type: data | url }, the reasoning setting from the effort', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const v4: LanguageModelV4 = {
      specificationVersion: 'v4',
      provider: 'v4-test',
      modelId: 'v4-model',
      async doGenerate(options) {
        calls.push(options as unknown as Record<string, unknown>);
        return {
          content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text: 'v4 answer' }],
          finishReason: { unified: 'stop', raw: 'end_turn' },
          usage: { inputTokens: { total: 20, noCache: 5, cacheRead: 5, cacheWrite: 10 }, outputTokens: { total: 4, text: 3, reasoning: 1 } },
          warnings: [],
        };
      },
      doStream: () => Promise.reject(new Error('not used')),
    };
    const request: ChatRequest = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AQID' } }, { type: 'image_url', image_url: { url: 'https://example.test/cat.png' } }] }],
      sampling: {},
      reasoningEffort: 'max',
    };
    const result = await fromLanguageModel(v4, { capabilities: { streaming: false } }).generate(request, recordingAttempt());
    expect(result).toMatchObject({ content: 'v4 answer', reasoningContent: 'hmm', thinkingObservation: 'observed', finishReason: 'end_turn' });
    expect(result.usage).toEqual({ promptTokens: 20, completionTokens: 4, cachedPromptTokens: 5, cacheWritePromptTokens: 10, reasoningTokens: 1, usageSource: 'measured' });
    expect(calls[0]).toMatchObject({
      reasoning: 'xhigh',
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'AQID' } }, { type: 'file', mediaType: 'image/*', data: { type: 'url', url: new URL('https://example.test/cat.png') } }] }],
    });
  });

  it('a stream is called with the V4 options too: tagged file data, the reasoning setting, raw chunks', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const v4: LanguageModelV4 = {
      specificationVersion: 'v4',
      provider: 'v4-test',
      modelId: 'v4-model',
      doGenerate: () => Promise.reject(new Error('not used')),
      async doStream(options) {
        calls.push({ ...options });
        const parts: LanguageModelV3StreamPart[] = [
          { type: 'text-delta', id: '0', delta: 'v4 stream' },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 2, text: 2, reasoning: 0 } } },
        ];
        return { stream: new ReadableStream({ start: (c) => (parts.forEach((p) => c.enqueue(p)), c.close()) }) };
      },
    };
    const request: ChatRequest = {
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AQID' } }] }],
      sampling: { max_tokens: 5 },
      reasoningEffort: 'low',
    };
    const result = await fromLanguageModel(v4).stream!(request, recordingAttempt());
    expect(result).toMatchObject({ content: 'v4 stream', finishReason: 'tool_calls' });
    expect(calls[0]).toMatchObject({
      includeRawChunks: true,
      reasoning: 'low',
      maxOutputTokens: 5,
      prompt: [{ role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'AQID' } }] }],
    });
  });

  it('refuses a model of another specification, naming it', () => {
    expect(() => fromLanguageModel({ specificationVersion: 'v1' } as never)).toThrow(/v2, v3 or v4, got v1/);
  });
});
