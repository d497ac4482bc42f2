/**
 * The real `@ai-sdk/anthropic` provider wrapped by fromLanguageModel, against a loopback server
 * speaking the Anthropic Messages wire (apps/interop): a governed source like any other, its
 * failures classified into the library's categories, its cache reads and writes in the usage.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { ContextLengthExceededError, RequestRejectedError, SourceDeadError, TransientError, type ChatRequest } from '@pgw/core';
import { startAnthropicWire, type AnthropicWireServer } from '@pgw/interop';
import { recordingAttempt } from '@pgw/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fromLanguageModel } from '../src/index.js';
import { mockClient, useMock } from './helpers.js';

const KEY = 'sk-ant-loopback-7f3e';
const REQUEST: ChatRequest = { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], sampling: { max_tokens: 64 } };

let wire: AnthropicWireServer;
const env = useMock();

beforeAll(async () => {
  wire = await startAnthropicWire();
});
beforeEach(() => {
  wire.requests.length = 0;
});
afterAll(async () => {
  await wire.close();
});

const claude = (streaming = true) =>
  fromLanguageModel(createAnthropic({ baseURL: wire.baseUrl, apiKey: KEY })('claude-sonnet-4-5'), { secrets: [KEY], capabilities: { streaming } });

describe('fromLanguageModel(@ai-sdk/anthropic)', () => {
  it.each([true, false])('answers with the measured usage, cache reads and writes included (streaming: %s)', async (streaming) => {
    wire.script({ kind: 'message', text: 'Hello there.', usage: { input_tokens: 10, output_tokens: 3, cache_creation_input_tokens: 200, cache_read_input_tokens: 50 } });
    const attempt = recordingAttempt();
    const result = await claude(streaming).generate(REQUEST, attempt);
    expect(result.content).toBe('Hello there.');
    // Anthropic's input_tokens leaves the cached ones out; the library's promptTokens counts every prompt token.
    expect(result.usage).toEqual({ promptTokens: 260, completionTokens: 3, cachedPromptTokens: 50, cacheWritePromptTokens: 200, usageSource: 'measured' });
    expect(attempt.usages.at(-1)).toEqual(result.usage);
    expect(result.finishReason).toBe('end_turn');
    expect(wire.requests.at(-1)!.body).toMatchObject({ model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'be brief' }], max_tokens: 64, messages: [{ role: 'user' }] });
    expect(wire.requests.at(-1)!.headers['x-api-key']).toBe(KEY);
  });

  it('streams text and thinking deltas as they arrive', async () => {
    wire.script({ kind: 'message', thinking: 'pondering', text: 'one two three' });
    const attempt = recordingAttempt();
    const result = await claude().stream!(REQUEST, attempt);
    expect(attempt.deltas.map((d) => d.content ?? '').join('')).toBe('one two three');
    expect(attempt.deltas.filter((d) => d.content).length).toBe(3);
    expect(result.reasoningContent).toBe('pondering');
    expect(result.thinkingObservation).toBe('observed');
  });

  it('a tool_use block is a tool call with its raw arguments', async () => {
    wire.script({ kind: 'message', toolUse: { id: 'toolu_01', name: 'weather', input: { city: 'Oslo' } } });
    const result = await claude().generate({ ...REQUEST, tools: [{ name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] }, recordingAttempt());
    expect(result.toolCalls).toEqual([{ id: 'toolu_01', name: 'weather', arguments: '{"city":"Oslo"}' }]);
    expect(result.finishReason).toBe('tool_use');
    expect(wire.requests.at(-1)!.body).toMatchObject({ tools: [{ name: 'weather', input_schema: { type: 'object' } }] });
  });

  const failures: Array<[string, Parameters<AnthropicWireServer['script']>[0], abstract new (...args: never[]) => Error, Record<string, unknown>]> = [
    ['429 with retry-after', { kind: 'error', status: 429, type: 'rate_limit_error', headers: { 'retry-after': '7' } }, TransientError, { transientKind: 'rate_limited', retryAfterMs: 7000, statusCode: 429 }],
    ['529 overloaded', { kind: 'error', status: 529, type: 'overloaded_error' }, TransientError, { transientKind: 'server_error', statusCode: 529 }],
    ['503', { kind: 'error', status: 503, type: 'api_error' }, TransientError, { transientKind: 'server_error', statusCode: 503 }],
    ['401', { kind: 'error', status: 401, type: 'authentication_error', message: `invalid x-api-key ${KEY}` }, SourceDeadError, { statusCode: 401 }],
    ['400 context length', { kind: 'error', status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' }, ContextLengthExceededError, { statusCode: 400 }],
    ['400 other', { kind: 'error', status: 400, type: 'invalid_request_error', message: 'max_tokens: field required' }, RequestRejectedError, { statusCode: 400 }],
    ['an overloaded_error event inside the stream', { kind: 'stream_error', type: 'overloaded_error', afterEvents: 3 }, TransientError, { transientKind: 'server_error' }],
  ];
  it.each(failures)('%s is classified through the real provider', async (_name, step, category, fields) => {
    wire.script(step);
    const error = await claude().generate(REQUEST, recordingAttempt()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(category);
    expect(error).toMatchObject({ sourceName: 'contract-source', ...fields });
    expect(JSON.stringify(error) + String((error as Error).message)).not.toContain(KEY);
  });

  it('a governed client with an Anthropic source: sources, gates, cost of cache writes in its telemetry rows', async () => {
    const { client, recorder } = await mockClient(env.mock, {}, {
      sources: [{ name: 'claude', rpm: 50, model: claude(), price: { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWriteInputPerMTok: 3.75, outputPerMTok: 15 } }],
    });
    try {
      wire.script({ kind: 'message', text: 'cached answer', usage: { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 1000, cache_read_input_tokens: 0 } });
      const response = await client.chat([{ role: 'user', content: 'hi' }]);
      expect(response).toMatchObject({ content: 'cached answer', source: 'claude', usage: { promptTokens: 1100, cacheWritePromptTokens: 1000 } });
      // 100 × 3 + 1000 × 3.75 + 10 × 15 per million.
      expect(response.costUsd).toBeCloseTo((100 * 3 + 1000 * 3.75 + 10 * 15) / 1e6, 12);
      await recorder.flush();
      expect(recorder.rows.find((row) => row.eventKind === 'attempt')).toMatchObject({ cacheWritePromptTokens: 1000, source: 'claude' });
    } finally {
      await client.close();
    }
  });
});
