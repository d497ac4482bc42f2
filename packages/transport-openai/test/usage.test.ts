import { describe, expect, it } from 'vitest';
import { parseChatCompletion } from '../src/chat-answer.js';
import { ChatStreamAssembler } from '../src/chat-stream.js';
import { estimatedChatUsage, measuredChatUsage } from '../src/usage.js';
import { toleratesOffSpec } from './conformance/recorder.js';
import { chunkJson, completionJson, usageChunkJson } from './spec-fixtures.js';

const failure = { sourceName: 'good', secrets: [], route: 'chat/completions', warn: () => {} };
const origin = { failure, status: 200, headers: {} };

/** Every usage wire form known, with the Usage it means. */
const FORMS: ReadonlyArray<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['plain', { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 }, { promptTokens: 10, completionTokens: 4 }],
  [
    'OpenAI / Qwen / vLLM prompt_tokens_details.cached_tokens and completion_tokens_details.reasoning_tokens',
    {
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 200 },
    },
    { promptTokens: 2006, completionTokens: 300, cachedPromptTokens: 1920, reasoningTokens: 200 },
  ],
  [
    'DeepSeek prompt_cache_hit_tokens / prompt_cache_miss_tokens',
    { prompt_tokens: 1500, completion_tokens: 50, total_tokens: 1550, prompt_cache_hit_tokens: 1280, prompt_cache_miss_tokens: 220 },
    { promptTokens: 1500, completionTokens: 50, cachedPromptTokens: 1280 },
  ],
  [
    'DeepSeek hit/miss without prompt_tokens',
    { completion_tokens: 50, prompt_cache_hit_tokens: 1280, prompt_cache_miss_tokens: 220 },
    { promptTokens: 1500, completionTokens: 50, cachedPromptTokens: 1280 },
  ],
  [
    'Moonshot flat cached_tokens, flat reasoning_tokens',
    { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920, cached_tokens: 512, reasoning_tokens: 7 },
    { promptTokens: 900, completionTokens: 20, cachedPromptTokens: 512, reasoningTokens: 7 },
  ],
  [
    'zero cached tokens stay measured as zero',
    { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10, prompt_tokens_details: { cached_tokens: 0 } },
    { promptTokens: 9, completionTokens: 1, cachedPromptTokens: 0 },
  ],
  [
    'a malformed detail is ignored, not guessed',
    { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10, prompt_tokens_details: { cached_tokens: -3 }, prompt_cache_hit_tokens: 'x' },
    { promptTokens: 9, completionTokens: 1 },
  ],
];

/** DeepSeek's form leaves out the spec's required prompt_tokens (and total): tolerated, not conforming. */
const tolerateOffSpecUsage = (wire: Record<string, unknown>, schema: 'CreateChatCompletionResponse' | 'CreateChatCompletionStreamResponse') => {
  if (wire['prompt_tokens'] === undefined) toleratesOffSpec(schema);
};

describe('usage wire forms', () => {
  it.each(FORMS)('%s: measuredChatUsage', (_form, wire, expected) => {
    expect(measuredChatUsage(wire)).toEqual({ ...expected, usageSource: 'measured' });
  });

  it.each(FORMS)('%s: in a JSON body', (_form, wire, expected) => {
    tolerateOffSpecUsage(wire, 'CreateChatCompletionResponse');
    const body = completionJson({ message: { content: 'ok' } }, { usage: wire });
    expect(parseChatCompletion(body, origin).usage).toEqual({ ...expected, usageSource: 'measured' });
  });

  it.each(FORMS)('%s: in the final usage chunk of a stream', (_form, wire, expected) => {
    tolerateOffSpecUsage(wire, 'CreateChatCompletionStreamResponse');
    const assembler = new ChatStreamAssembler(origin);
    assembler.accept({ event: 'message', data: chunkJson({ content: 'ok' }, null, { usage: null }) });
    const news = assembler.accept({ event: 'message', data: usageChunkJson(wire) });
    expect(news.usage).toEqual({ ...expected, usageSource: 'measured' });
    assembler.accept({ event: 'message', data: '[DONE]' });
    expect(assembler.answer(undefined).usage).toEqual({ ...expected, usageSource: 'measured' });
  });

  it('no usage without prompt and completion counts', () => {
    expect(measuredChatUsage({ completion_tokens: 3, prompt_cache_hit_tokens: 5 })).toBeUndefined();
    expect(measuredChatUsage(null)).toBeUndefined();
  });

  it('estimates the prompt from the text of function and custom calls alike', () => {
    const input = 'find /var/log -name "*.gz" -mtime +30 -delete';
    const asked = (call: object) => estimatedChatUsage([{ role: 'assistant', content: null, tool_calls: [call as never] }], '').promptTokens;
    const custom = asked({ id: 'c', type: 'custom', custom: { name: 'shell', input } });
    expect(custom).toBe(asked({ id: 'c', type: 'function', function: { name: 'shell', arguments: input } }));
    expect(custom).toBeGreaterThan(10);
  });
});
