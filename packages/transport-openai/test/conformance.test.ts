/**
 * The conformance check itself (test/conformance): every test of this package has its request bodies
 * and parsed answers checked against the vendored OpenAI OpenAPI document. Here: the check catches a
 * drift, the hooks see what the provider builds, and the request forms the provider can build.
 */
import { EFFORTS, type ChatMessage, type ChatRequest } from '@pgw/core';
import { providerProfile } from '@pgw/core/internal';
import { describe, expect, it } from 'vitest';
import { parseChatCompletion } from '../src/chat-answer.js';
import { ChatStreamAssembler } from '../src/chat-stream.js';
import { parseEmbeddings } from '../src/embed-answer.js';
import { chatBody, embedBody } from '../src/request-body.js';
import { StrictResponseFormat } from '../src/strict-schema.js';
import { specIssues } from '@pgw/testkit/internal';
import { takeRecorded } from './conformance/recorder.js';
import { chunkJson, completionJson, embeddingsJson } from './spec-fixtures.js';

const origin = { failure: { sourceName: 'good', secrets: [], route: 'chat/completions', warn: () => {} }, status: 200, headers: {} };
const wire = { model: 'gpt-5', extraBody: {}, profile: providerProfile('openai'), stream: false, effortMap: {}, strict: new StrictResponseFormat(true, () => {}) };
const ask: ChatMessage[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
const weather = { name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } };
const answerSchema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };

describe('the OpenAI spec check', () => {
  it('refuses bodies and answers that drift from the spec, saying where', () => {
    expect(specIssues('CreateChatCompletionRequest', { model: 'm', messages: ask, reasoning_effort: 'extreme' })).not.toEqual([]);
    expect(specIssues('CreateChatCompletionRequest', { model: 'm', messages: ask, tools: [{ function: { name: 'weather' } }] })).not.toEqual([]);
    const notStrict = { model: 'm', messages: ask, response_format: { type: 'json_schema', json_schema: { name: 'r', schema: {}, strict: 'yes' } } };
    expect(specIssues('CreateChatCompletionRequest', notStrict)).not.toEqual([]);
    expect(specIssues('CreateEmbeddingRequest', { model: 'm', input: ['a'], dimensions: 0 })).not.toEqual([]);
    const customWithoutInput = JSON.parse(completionJson({ message: { content: null, tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'shell' } }] } }));
    expect(specIssues('CreateChatCompletionResponse', customWithoutInput).join('\n')).toContain('/choices/0/message/tool_calls/0');
    expect(specIssues('CreateChatCompletionRequest', { model: 'm', messages: ask })).toEqual([]);
  });

  it('sees every body the provider builds and every answer it parses without error', () => {
    takeRecorded();
    const chat = chatBody(wire, { messages: ask, sampling: {} });
    const embed = embedBody('text-embedding-3-small', {}, { texts: ['a'] });
    const completion = completionJson({ message: { content: 'hi' } });
    parseChatCompletion(completion, origin);
    const embeddings = embeddingsJson([{ index: 0, embedding: [1] }], { prompt_tokens: 1, total_tokens: 1 });
    parseEmbeddings(embeddings, origin, 1);
    const stream = new ChatStreamAssembler(origin);
    const chunk = chunkJson({ content: 'hi' });
    for (const data of [chunk, '[DONE]', chunkJson({ content: 'after the end' })]) stream.accept({ event: 'message', data });
    expect(() => parseChatCompletion('{"choices":[]}', origin)).toThrow();
    expect(takeRecorded()).toEqual([
      { schema: 'CreateChatCompletionRequest', value: chat },
      { schema: 'CreateEmbeddingRequest', value: embed },
      { schema: 'CreateChatCompletionResponse', value: JSON.parse(completion) },
      { schema: 'CreateEmbeddingResponse', value: JSON.parse(embeddings) },
      { schema: 'CreateChatCompletionStreamResponse', value: JSON.parse(chunk) },
    ]);
  });
});

describe('every request form the provider builds conforms (checked after each test)', () => {
  const build = (request: Partial<ChatRequest>, overrides: Partial<typeof wire> = {}) =>
    chatBody({ ...wire, ...overrides }, { messages: ask, sampling: {}, ...request });

  it('plain chat, streamed and not, with the sampling keys of the spec', () => {
    build({});
    build({}, { stream: true });
    build({
      sampling: {
        temperature: 0.2, top_p: 0.9, max_tokens: 100, max_completion_tokens: 200, n: 1, stop: ['\n\n'], presence_penalty: 0.1,
        frequency_penalty: 0.2, logit_bias: { '50256': -100 }, logprobs: true, top_logprobs: 2, seed: 7, user: 'u-1', service_tier: 'auto',
        store: false, metadata: { run: 'r1' }, modalities: ['text'], verbosity: 'low', prompt_cache_key: 'k', safety_identifier: 's',
      },
    });
  });

  it.each(EFFORTS)('reasoning effort %s', (effort) => {
    build({ reasoningEffort: effort });
  });

  it.each(['auto', 'none', 'required', { name: 'weather' }] as const)('tools with tool choice %j, parallel and not', (toolChoice) => {
    build({ tools: [weather, { name: 'time', parameters: { type: 'object' } }], toolChoice, parallelToolCalls: true });
    build({ tools: [weather], toolChoice, parallelToolCalls: false });
  });

  it('a tool conversation with function and custom calls', () => {
    const messages: ChatMessage[] = [
      ...ask,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'custom', custom: { name: 'shell', input: 'date' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"tempC":21}' },
      { role: 'tool', tool_call_id: 'c2', content: 'Tue Dec  1' },
    ];
    build({ messages, tools: [weather] });
  });

  it('structured output, strict and not, alone and next to tools', () => {
    const responseFormat = { type: 'json_schema' as const, name: 'response', schema: answerSchema };
    build({ responseFormat });
    build({ responseFormat: { ...responseFormat, schema: { type: 'object', properties: { a: { type: 'string', minLength: 1 } } } } });
    build({ responseFormat }, { strict: new StrictResponseFormat(false, () => {}) });
    build({ responseFormat, tools: [weather], toolChoice: 'auto' });
  });

  it('content parts with text, an image and audio, and a system message', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture and this clip?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        ],
      },
    ];
    build({ messages });
  });

  it('embeddings, with dimensions', () => {
    embedBody('text-embedding-3-small', {}, { texts: ['a', 'b'] });
    embedBody('text-embedding-3-small', { dimensions: 256, encoding_format: 'float' }, { texts: ['a'] });
  });
});
