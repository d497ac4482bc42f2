import { RequestRejectedError, ResultInvalidError, SourceDeadError, TransientError } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { parseChatCompletion, toChatResult } from '../src/chat-answer.js';
import { ChatStreamAssembler } from '../src/chat-stream.js';
import { parseEmbeddings } from '../src/embed-answer.js';
import { toleratesOffSpec } from './conformance/recorder.js';
import { thrown } from './helpers.js';
import { chunkJson, completionJson, embeddingsJson, usageChunkJson, usageJson } from './spec-fixtures.js';

const failure = { sourceName: 'good', secrets: ['sk-k'], route: 'chat/completions', warn: () => {} };
const origin = { failure, status: 200, headers: {} };
const data = (text: string) => ({ event: 'message', data: text });
const messages = [{ role: 'user' as const, content: 'hello there, model' }];

describe('parseChatCompletion', () => {
  it('reads content, reasoning, finish reason and measured usage (reasoning tokens from the details)', () => {
    const answer = parseChatCompletion(
      completionJson(
        { message: { content: 'hi', reasoning_content: 'thinking' }, finish_reason: 'stop' },
        { usage: usageJson(5, 7, { completion_tokens_details: { reasoning_tokens: 3 } }) },
      ),
      origin,
    );
    expect(answer).toEqual({
      content: 'hi',
      reasoningContent: 'thinking',
      finishReason: 'stop',
      usage: { promptTokens: 5, completionTokens: 7, reasoningTokens: 3, usageSource: 'measured' },
    });
  });

  it('accepts `reasoning` as the reasoning field and null content', () => {
    const answer = parseChatCompletion(completionJson({ message: { content: null, reasoning: 'r' } }), origin);
    expect(answer).toMatchObject({ content: '', reasoningContent: 'r' });
    expect(answer.usage).toBeUndefined();
  });

  it.each([
    ['{"choices":[{"message":', 'body is not JSON'],
    ['[1,2]', 'body is not a JSON object'],
    ['{"id":"x"}', 'no choices'],
    ['{"choices":[]}', 'no choices'],
    ['{"choices":[{"text":"legacy"}]}', 'choices[0].message is missing'],
    ['{"choices":[{"message":{"content":42}}]}', 'choices[0].message.content is not a string'],
  ])('rejects %s as ResultInvalidError (%s)', async (body, issue) => {
    const error = await thrown(() => parseChatCompletion(body, origin));
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect(error).toMatchObject({ issues: [issue], statusCode: 200, sourceName: 'good' });
  });
});

describe('toChatResult', () => {
  it('estimates usage from the texts when none was measured and observes thinking from reasoning text', () => {
    const result = toChatResult({ content: 'a'.repeat(40), reasoningContent: 'b'.repeat(40) }, 'mock-model', messages);
    expect(result.usage).toEqual({ promptTokens: 5, completionTokens: 20, usageSource: 'estimated' });
    expect(result.thinkingObservation).toBe('observed');
    expect(result.reasoningContent).toBe('b'.repeat(40));
    expect(result.model).toBe('mock-model');
  });

  it('observes absent thinking from zero measured reasoning tokens, unknown without any signal', () => {
    const usage = { promptTokens: 1, completionTokens: 1, reasoningTokens: 0, usageSource: 'measured' as const };
    expect(toChatResult({ content: 'x', reasoningContent: '', usage }, 'mock-model', messages).thinkingObservation).toBe('absent');
    const plain = toChatResult({ content: 'x', reasoningContent: '' }, 'mock-model', messages);
    expect(plain.thinkingObservation).toBe('unknown');
    expect(plain).not.toHaveProperty('reasoningContent');
  });
});

describe('ChatStreamAssembler', () => {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => chunkJson(delta, null, extra);

  it('separates content from reasoning and reports usage and the finish reason', () => {
    const assembler = new ChatStreamAssembler(origin);
    expect(assembler.accept(data(chunk({ role: 'assistant', content: '' }, { usage: null })))).toEqual({});
    expect(assembler.accept(data(chunk({ reasoning_content: 'hmm' })))).toEqual({ delta: { reasoningContent: 'hmm' } });
    expect(assembler.accept(data(chunk({ content: 'Hel' })))).toEqual({ delta: { content: 'Hel' } });
    expect(assembler.accept(data(chunkJson({ content: 'lo' }, 'stop')))).toEqual({
      delta: { content: 'lo' },
    });
    expect(assembler.accept(data(usageChunkJson(usageJson(2, 3))))).toEqual({
      usage: { promptTokens: 2, completionTokens: 3, usageSource: 'measured' },
    });
    expect(assembler.done).toBe(false);
    assembler.accept(data('[DONE]'));
    expect(assembler.done).toBe(true);
    expect(assembler.accept(data(chunk({ content: 'after done' })))).toEqual({});
    expect(assembler.answer(12)).toEqual({
      content: 'Hello',
      reasoningContent: 'hmm',
      finishReason: 'stop',
      usage: { promptTokens: 2, completionTokens: 3, usageSource: 'measured' },
      ttftMs: 12,
    });
  });

  it('rejects a finished stream that never carried a choice', async () => {
    toleratesOffSpec('CreateChatCompletionStreamResponse'); // a chunk without choices: what is refused here
    const assembler = new ChatStreamAssembler(origin);
    assembler.accept(data('{"id":"x","object":"chat.completion.chunk"}'));
    assembler.accept(data('[DONE]'));
    const error = await thrown(() => assembler.answer(undefined));
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect(error).toMatchObject({ issues: ['no choices in the stream'] });
  });

  it('rejects a chunk that is not JSON and turns an untyped error payload into a transient failure', async () => {
    expect(() => new ChatStreamAssembler(origin).accept(data('{"choices":[{"delta":'))).toThrow(ResultInvalidError);
    const error = await thrown(() => new ChatStreamAssembler(origin).accept(data('{"error":{"message":"overloaded, key sk-k"}}')));
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({ transientKind: 'server_error' });
    expect((error as TransientError).bodyText).not.toContain('sk-k');
  });

  it('classifies an in-band error by its type, in a data payload or an event: error', async () => {
    const rejected = await thrown(() => new ChatStreamAssembler(origin).accept(data('{"error":{"message":"bad","type":"invalid_request_error"}}')));
    expect(rejected).toBeInstanceOf(RequestRejectedError);
    const assembler = new ChatStreamAssembler(origin);
    assembler.accept(data(chunk({ content: 'partial' })));
    const dead = await thrown(() => assembler.accept({ event: 'error', data: '{"type":"error","error":{"type":"authentication_error"}}' }));
    expect(dead).toBeInstanceOf(SourceDeadError);
  });
});

describe('an in-band error in a 200 JSON body', () => {
  it('is classified like the HTTP error it stands for, for chat and embeddings', async () => {
    const body = '{"error":{"message":"slow down","type":"rate_limit_error"}}';
    expect(await thrown(() => parseChatCompletion(body, origin))).toMatchObject({ transientKind: 'rate_limited' });
    expect(await thrown(() => parseEmbeddings('{"error":{"code":400}}', origin, 1))).toBeInstanceOf(RequestRejectedError);
  });
});

describe('parseEmbeddings', () => {
  const embedOrigin = { ...origin, failure: { ...failure, route: 'embeddings' } };
  const body = (data: unknown, usage?: unknown) => JSON.stringify({ data, ...(usage !== undefined && { usage }) });

  it('orders vectors by index and reads usage', () => {
    const answer = parseEmbeddings(
      embeddingsJson(
        [
          { index: 1, embedding: [0, 1] },
          { index: 0, embedding: [1, 0] },
        ],
        { prompt_tokens: 4, total_tokens: 4 },
      ),
      embedOrigin,
      2,
    );
    expect(answer).toEqual({ vectors: [[1, 0], [0, 1]], usage: { promptTokens: 4, completionTokens: 0, usageSource: 'measured' } });
  });

  it.each([
    [body('none'), 1, 'data is not an array'],
    [body([{ index: 0, embedding: [1] }]), 2, '1 embeddings for 2 inputs'],
    [body([{ index: 0, embedding: ['1'] }]), 1, 'data[0].embedding is not a non-empty array of finite numbers'],
    [body([{ index: 0, embedding: [] }]), 1, 'data[0].embedding is not a non-empty array of finite numbers'],
    [body([{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }]), 2, 'data[1].index is out of range or repeated'],
    [body([{ index: 5, embedding: [1] }]), 1, 'data[0].index is out of range or repeated'],
    [body([{ index: 0, embedding: [1] }, { index: 1, embedding: [1, 2] }]), 2, 'embeddings differ in dimension'],
  ])('rejects %s for %i inputs: %s', async (text, count, issue) => {
    const error = await thrown(() => parseEmbeddings(text, embedOrigin, count));
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect((error as ResultInvalidError).issues).toEqual([issue]);
  });
});
