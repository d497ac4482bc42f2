import { ResultInvalidError, wholeAnswerDelta, type ChatMessage } from '@pgw/core';
import { providerProfile } from '@pgw/core/internal';
import { describe, expect, it } from 'vitest';
import { parseChatCompletion, toChatResult } from '../src/chat-answer.js';
import { ChatStreamAssembler } from '../src/chat-stream.js';
import { chatBody } from '../src/request-body.js';

const failure = { sourceName: 'good', secrets: ['sk-k'], route: 'chat/completions', warn: () => {} };
const origin = { failure, status: 200, headers: {} };
const wire = { model: 'mock-model', extraBody: {}, profile: providerProfile('openai'), stream: false };
const weather = { name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
const chunk = (delta: object, finish: string | null = null) => ({
  event: 'message',
  data: JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] }),
});

describe('tools on the request wire', () => {
  it('maps tools, a named tool choice and the parallel flag, next to a native response format', () => {
    const schema = { type: 'object' };
    const body = chatBody(wire, {
      messages: [{ role: 'user', content: 'hi' }],
      sampling: {},
      tools: [weather, { name: 'time', parameters: { type: 'object' } }],
      toolChoice: { name: 'weather' },
      parallelToolCalls: false,
      responseFormat: { type: 'json_schema', name: 'response', schema },
    });
    expect(body['tools']).toEqual([
      { type: 'function', function: { name: 'weather', description: 'Weather of a city', parameters: weather.parameters } },
      { type: 'function', function: { name: 'time', parameters: { type: 'object' } } },
    ]);
    expect(body['tool_choice']).toEqual({ type: 'function', function: { name: 'weather' } });
    expect(body['parallel_tool_calls']).toBe(false);
    expect(body['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema } });
  });

  it('passes a string tool choice as is, and sends no tool keys without tools', () => {
    expect(chatBody(wire, { messages: [], sampling: {}, tools: [weather], toolChoice: 'required' })['tool_choice']).toBe('required');
    const plain = chatBody(wire, { messages: [], sampling: {} });
    expect(Object.keys(plain).filter((key) => key.includes('tool'))).toEqual([]);
  });

  it('sends a tool conversation in the OpenAI wire shape unchanged', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"tempC":21}' },
    ];
    expect(chatBody(wire, { messages, sampling: {} })['messages']).toEqual(messages);
  });
});

describe('tool calls of a non-streamed answer', () => {
  it('reads id, name and raw arguments (object arguments become their JSON text) and the finish reason', () => {
    const answer = parseChatCompletion(
      JSON.stringify({
        choices: [
          {
            message: {
              content: null,
              tool_calls: [
                { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
                { id: 'c2', type: 'function', function: { name: 'weather', arguments: { city: 'Oslo' } } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 7 },
      }),
      origin,
    );
    expect(answer.toolCalls).toEqual([
      { id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'c2', name: 'weather', arguments: '{"city":"Oslo"}' },
    ]);
    const result = toChatResult(answer, 'mock-model', []);
    expect(result).toMatchObject({ content: '', finishReason: 'tool_calls', toolCalls: answer.toolCalls });
  });

  it('refuses tool calls without an id or name as an invalid result', () => {
    const body = '{"choices":[{"message":{"content":null,"tool_calls":[{"type":"function","function":{"arguments":"{}"}}]}}]}';
    expect(() => parseChatCompletion(body, origin)).toThrow(ResultInvalidError);
    expect(() => parseChatCompletion(body, origin)).toThrow(/tool_calls\[0\]/);
  });

  it('estimates usage from the arguments when the upstream reports none', () => {
    const answer = parseChatCompletion('{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","function":{"name":"weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]}}]}', origin);
    expect(toChatResult(answer, 'm', []).usage.completionTokens).toBeGreaterThan(0);
  });
});

describe('streamed tool calls', () => {
  it('assembles interleaved fragments by index, arguments split mid-escape, and yields each fragment as a delta', () => {
    const assembler = new ChatStreamAssembler(origin);
    const news = [
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Pa' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{"city":"a\\' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '"b\\u00e9"}' } }] }),
      chunk({}, 'tool_calls'),
      { event: 'message', data: '[DONE]' },
    ].map((event) => assembler.accept(event));
    expect(news[2]!.delta).toEqual({ toolCalls: [{ index: 0, id: 'c1', name: 'weather', arguments: '{"city":"Pa' }] });
    expect(news[3]!.delta).toEqual({ toolCalls: [{ index: 1, arguments: '{"city":"a\\' }] });
    expect(news[0]!.delta).toBeUndefined();
    const answer = assembler.answer(undefined);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.toolCalls).toEqual([
      { id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'c2', name: 'weather', arguments: '{"city":"a\\"b\\u00e9"}' },
    ]);
    expect(JSON.parse(answer.toolCalls![1]!.arguments)).toEqual({ city: 'a"bé' });
  });

  it('gives a call without an id one by its index, and keeps a name repeated on every fragment once', () => {
    const assembler = new ChatStreamAssembler(origin);
    assembler.accept(chunk({ tool_calls: [{ index: 0, function: { name: 'time', arguments: '{' } }] }));
    assembler.accept(chunk({ tool_calls: [{ index: 0, function: { name: 'time', arguments: '}' } }] }));
    assembler.accept({ event: 'message', data: '[DONE]' });
    expect(assembler.answer(undefined).toolCalls).toEqual([{ id: 'call_0', name: 'time', arguments: '{}' }]);
  });
});

describe('wholeAnswerDelta', () => {
  it('carries complete tool calls as fragments with their index; nothing for an empty answer', () => {
    expect(wholeAnswerDelta({ content: '', toolCalls: [{ id: 'c1', name: 'weather', arguments: '{}' }] })).toEqual({
      toolCalls: [{ index: 0, id: 'c1', name: 'weather', arguments: '{}' }],
    });
    expect(wholeAnswerDelta({ content: '' })).toBeUndefined();
  });
});
