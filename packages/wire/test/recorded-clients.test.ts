/**
 * Every request body recorded from a real client (test/fixtures/<client>.json, one file per client,
 * each request with its protocol) runs through its protocol's parser, which must not refuse it and
 * must carry its model, messages, tools and stream flag; then each governed answer (text, a tool
 * call, reasoning and usage details, a cut answer) is shaped, whole and streamed, for that request,
 * and every object and event is validated: OpenAI's against the vendored OpenAPI document,
 * Anthropic's against the schema stated from its SDK's types (anthropic-schema.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { serverSentEvents as sseEvents, specIssues } from '@pgw/testkit/internal';
import { describe, expect, it } from 'vitest';
import {
  anthropicMessage,
  chatCall,
  chatCompletion,
  chatEncoder,
  embedCall,
  embeddingList,
  messagesCall,
  messagesEncoder,
  responseObject,
  responsesCall,
  responsesEncoder,
  type StreamEncoder,
} from '../src/index.js';
import { ANSWERS, deltasOf } from './answers.js';
import { anthropicMessage as anthropicMessageSchema, anthropicStreamEvent } from './anthropic-schema.js';
import type { LLMResponse } from '@pgw/core';

interface RecordedRequest {
  name: string;
  protocol: 'chat' | 'responses' | 'messages' | 'embeddings';
  path: string;
  body: Record<string, unknown>;
}
interface Fixture {
  client: string;
  version: string;
  recordedWith: string;
  requests: RecordedRequest[];
}

const dir = new URL('./fixtures/', import.meta.url);
const fixtures = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => ({ file: name, ...(JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as Fixture) }));

const PATHS = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages', embeddings: '/v1/embeddings' } as const;
const CALL_ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/** The text a stream encoder writes for `answer`. */
async function streamed(encoder: StreamEncoder, answer: LLMResponse): Promise<string> {
  return encoder.start() + deltasOf(answer).map((delta) => encoder.delta(delta)).join('') + (await encoder.finish(answer));
}

const issuesOf = (schema: string, value: unknown) => specIssues(schema, value).map((issue) => `${schema}: ${issue}`);
const anthropicIssues = (schema: typeof anthropicMessageSchema | typeof anthropicStreamEvent, value: unknown) =>
  (schema.safeParse(value).error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);

/** Tools a Responses request offers upstream: its function and custom tools, and each namespace's own. */
function responsesToolCount(tools: unknown): number {
  return ((tools as { type: string; tools?: unknown[] }[] | undefined) ?? []).reduce((sum, tool) => sum + (tool.type === 'namespace' ? tool.tools!.length : tool.type === 'function' || tool.type === 'custom' ? 1 : 0), 0);
}

it('finds the recorded clients, each file in the fixture format', () => {
  expect(fixtures.map((fixture) => fixture.file)).toEqual(expect.arrayContaining(['openai-sdk.json', 'anthropic-sdk.json', 'codex-cli.json']));
  for (const fixture of fixtures) {
    expect(fixture).toMatchObject({ client: expect.any(String), version: expect.any(String), recordedWith: expect.any(String) });
    expect(fixture.requests.length).toBeGreaterThan(0);
    for (const request of fixture.requests) expect(PATHS[request.protocol]).toBe(request.path);
  }
});

describe.each(fixtures)('$client $version', ({ requests }) => {
  describe.each(requests)('$name ($protocol)', (request) => {
    const { body } = request;

    if (request.protocol === 'chat') {
      const call = chatCall(body);
      it('parses: model, every message, every tool, the stream flag', () => {
        expect(call.model).toBe(body['model']);
        expect(call.messages).toHaveLength((body['messages'] as unknown[]).length);
        expect(Object.keys(call.options.tools ?? {})).toHaveLength((body['tools'] as unknown[] | undefined)?.length ?? 0);
        expect(call.stream).toBe(body['stream'] === true);
      });
      it.each(ANSWERS)('shapes %s as a chat.completion and its chunks, as the OpenAPI document says', async (_name, answer) => {
        expect(issuesOf('CreateChatCompletionResponse', chatCompletion(answer))).toEqual([]);
        const events = sseEvents(await streamed(chatEncoder({ model: call.model, includeUsage: true }, CALL_ID), answer));
        expect(events.at(-1)!.data).toBe('[DONE]');
        expect(events.slice(0, -1).flatMap((event) => issuesOf('CreateChatCompletionStreamResponse', JSON.parse(event.data)))).toEqual([]);
      });
    }

    if (request.protocol === 'responses') {
      const call = responsesCall(body, { hostedTools: 'drop' });
      it('parses: model, its conversation, every function, custom and namespace tool, the stream flag', () => {
        expect(call.model).toBe(body['model']);
        expect(call.messages.length).toBeGreaterThan(0);
        expect(Object.keys(call.options.tools ?? {})).toHaveLength(responsesToolCount(body['tools']));
        expect(call.stream).toBe(body['stream'] === true);
      });
      it.each(ANSWERS)('shapes %s as a response and its events, as the OpenAPI document says', async (_name, answer) => {
        expect(issuesOf('Response', responseObject(answer, call.echo, call.namespaced))).toEqual([]);
        const events = sseEvents(await streamed(responsesEncoder(call, CALL_ID, async () => {}), answer));
        for (const event of events) expect(event.event).toBe((JSON.parse(event.data) as { type: string }).type);
        expect(events.flatMap((event) => issuesOf('ResponseStreamEvent', JSON.parse(event.data)))).toEqual([]);
      });
    }

    if (request.protocol === 'messages') {
      const call = messagesCall(body);
      it('parses: model, its conversation, every tool, the stream flag', () => {
        expect(call.model).toBe(body['model']);
        expect(call.messages.length).toBeGreaterThanOrEqual((body['messages'] as unknown[]).length);
        expect(Object.keys(call.options.tools ?? {})).toHaveLength((body['tools'] as unknown[] | undefined)?.length ?? 0);
        expect(call.stream).toBe(body['stream'] === true);
      });
      it.each(ANSWERS)("shapes %s as a message and its events, as the Anthropic SDK's types say", async (_name, answer) => {
        expect(anthropicIssues(anthropicMessageSchema, anthropicMessage(answer))).toEqual([]);
        const events = sseEvents(await streamed(messagesEncoder(call, CALL_ID), answer));
        for (const event of events) expect(event.event).toBe((JSON.parse(event.data) as { type: string }).type);
        expect(events.flatMap((event) => anthropicIssues(anthropicStreamEvent, JSON.parse(event.data)))).toEqual([]);
      });
    }

    if (request.protocol === 'embeddings') {
      const call = embedCall(body);
      it('parses: model, every text, the encoding', () => {
        expect(call.model).toBe(body['model']);
        expect(call.texts).toHaveLength(typeof body['input'] === 'string' ? 1 : (body['input'] as unknown[]).length);
        expect(call.base64).toBe(body['encoding_format'] === 'base64');
      });
      it('shapes vectors as an embedding list, as the OpenAPI document says', () => {
        const result = { vectors: call.texts.map((_text, index) => [0.25 * index, -0.5, 1]), model: call.model, usage: { promptTokens: 4, completionTokens: 0, usageSource: 'measured' as const } };
        const list = embeddingList(result, call.base64) as { data: { embedding: number[] | string }[] };
        // The document types an embedding as floats only: a base64 one (what the SDK asks) is read back to its floats first.
        const floats = list.data.map(({ embedding }) => (typeof embedding === 'string' ? [...new Float32Array(new Uint8Array(Buffer.from(embedding, 'base64')).buffer)] : embedding));
        expect(floats).toEqual(result.vectors);
        expect(issuesOf('CreateEmbeddingResponse', { ...list, data: list.data.map((item, index) => ({ ...item, embedding: floats[index] })) })).toEqual([]);
      });
    }
  });
});
