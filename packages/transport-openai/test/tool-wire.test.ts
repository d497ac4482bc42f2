import { ResultInvalidError, wholeAnswerDelta, type ChatMessage } from '@pgw/core';
import { providerProfile } from '@pgw/core/internal';
import { describe, expect, it } from 'vitest';
import { parseChatCompletion, toChatResult } from '../src/chat-answer.js';
import { ChatStreamAssembler } from '../src/chat-stream.js';
import { chatBody } from '../src/request-body.js';
import { StrictResponseFormat } from '../src/strict-schema.js';
import { toleratesOffSpec } from './conformance/recorder.js';
import { chunkJson, completionJson } from './spec-fixtures.js';

const failure = { sourceName: 'good', secrets: ['sk-k'], route: 'chat/completions', warn: () => {} };
const origin = { failure, status: 200, headers: {} };
const wire = { model: 'mock-model', extraBody: {}, profile: providerProfile('openai'), stream: false, effortMap: {}, strict: new StrictResponseFormat(true, () => {}) };
const weather = { name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ event: 'message', data: chunkJson(delta, finish) });

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

  it('sends a custom tool as one, with its format, and names it as a custom choice', () => {
    const grammar = { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: "a"' } };
    const body = chatBody(wire, {
      messages: [{ role: 'user', content: 'patch it' }],
      sampling: {},
      tools: [weather, { name: 'apply_patch', type: 'custom', description: 'Apply a patch', format: grammar }, { name: 'note', type: 'custom' }],
      toolChoice: { name: 'apply_patch' },
    });
    expect(body['tools']).toEqual([
      { type: 'function', function: { name: 'weather', description: 'Weather of a city', parameters: weather.parameters } },
      { type: 'custom', custom: { name: 'apply_patch', description: 'Apply a patch', format: grammar } },
      { type: 'custom', custom: { name: 'note' } },
    ]);
    expect(body['tool_choice']).toEqual({ type: 'custom', custom: { name: 'apply_patch' } });
  });

  it('passes a string tool choice as is, and sends no tool keys without tools', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    expect(chatBody(wire, { messages, sampling: {}, tools: [weather], toolChoice: 'required' })['tool_choice']).toBe('required');
    const plain = chatBody(wire, { messages, sampling: {} });
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
    toleratesOffSpec('CreateChatCompletionResponse'); // arguments as an object: some servers send them so
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

  it('reads a custom call next to text and a function call as what it is: its type, name and raw input', () => {
    const answer = parseChatCompletion(
      completionJson({
        message: {
          content: 'Running both.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'c2', type: 'custom', custom: { name: 'shell', input: 'ls -la /tmp' } },
          ],
        },
        finish_reason: 'tool_calls',
      }),
      origin,
    );
    expect(answer.content).toBe('Running both.');
    expect(answer.toolCalls).toEqual([
      { id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'c2', type: 'custom', name: 'shell', arguments: 'ls -la /tmp' },
    ]);
  });

  it.each([
    ['an id', '{"type":"function","function":{"name":"weather","arguments":"{}"}}', 'tool_calls[0] has no id'],
    ['a function name', '{"id":"c1","type":"function","function":{"arguments":"{}"}}', 'tool_calls[0] is a function call without function.name'],
    ['a custom name', '{"id":"c1","type":"custom","custom":{"input":"x"}}', 'tool_calls[0] is a custom call without custom.name'],
    ['a custom input', '{"id":"c1","type":"custom","custom":{"name":"shell"}}', 'tool_calls[0] is a custom call whose custom.input is not a string'],
    ['a supported type', '{"id":"c1","type":"allowed_tools","allowed_tools":{}}', "tool_calls[0] has type 'allowed_tools', which is neither function nor custom"],
    ['an object', '"c1"', 'tool_calls[0] is not an object'],
  ])('says what is wrong with a tool call that lacks %s', (_, call, issue) => {
    const body = `{"choices":[{"message":{"content":null,"tool_calls":[${call}]}}]}`;
    const error = (() => {
      try {
        parseChatCompletion(body, origin);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ResultInvalidError);
    expect((error as ResultInvalidError).issues).toEqual([`choices[0].message.${issue}`]);
  });

  it('estimates usage from the arguments when the upstream reports none', () => {
    toleratesOffSpec('CreateChatCompletionResponse'); // a bare answer whose call has no type: some servers send them so
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

  it('assembles a streamed custom call from its input pieces, next to a function call', () => {
    toleratesOffSpec('CreateChatCompletionStreamResponse'); // the spec's chunk schema has function calls only; servers stream custom ones too
    const assembler = new ChatStreamAssembler(origin);
    const news = [
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'c2', type: 'custom', custom: { name: 'shell', input: 'ls ' } }] }),
      chunk({ tool_calls: [{ index: 1, custom: { input: '-la' } }] }),
      chunk({}, 'tool_calls'),
      { event: 'message', data: '[DONE]' },
    ].map((event) => assembler.accept(event));
    expect(news[1]!.delta).toEqual({ toolCalls: [{ index: 1, id: 'c2', type: 'custom', name: 'shell', arguments: 'ls ' }] });
    expect(news[2]!.delta).toEqual({ toolCalls: [{ index: 1, arguments: '-la' }] });
    expect(assembler.answer(undefined).toolCalls).toEqual([
      { id: 'c1', name: 'weather', arguments: '{}' },
      { id: 'c2', type: 'custom', name: 'shell', arguments: 'ls -la' },
    ]);
  });

  it('refuses a streamed call of another type, naming the type', () => {
    const assembler = new ChatStreamAssembler(origin);
    const other = chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'allowed_tools' }] });
    expect(() => assembler.accept(other)).toThrow(ResultInvalidError);
    expect(() => assembler.accept(other)).toThrow(/delta\.tool_calls\[0\] has type 'allowed_tools', which is neither function nor custom/);
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
    expect(wholeAnswerDelta({ content: '', toolCalls: [{ id: 'c2', type: 'custom', name: 'shell', arguments: 'date' }] })).toEqual({
      toolCalls: [{ index: 0, id: 'c2', type: 'custom', name: 'shell', arguments: 'date' }],
    });
  });
});
