/**
 * `POST /v1/responses` in every shape it answers, each answer and event checked against the OpenAI
 * OpenAPI document by the harness's fetch (test/conformance): the cases the SDK tests do not reach —
 * custom tool calls, reasoning, an answer cut at max_output_tokens, structured output streamed, an
 * upstream failure — and the check itself, which must name the event and the path of a drift.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeDrifts, takeResponsesDrifts } from './conformance/responses.js';
import { startHarness, type Harness } from './helpers.js';

/** An upstream answer cut at its token limit, whole and streamed (the mock has no step for it). */
const cutAnswer = {
  kind: 'status' as const,
  status: 200,
  body: { id: 'chatcmpl-cut', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'It was a dark and' }, finish_reason: 'length', logprobs: null }], usage: { prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 } },
};
const chunk = (delta: object, finishReason: string | null) => `data: ${JSON.stringify({ id: 'chatcmpl-cut', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
const cutStream = {
  kind: 'status' as const,
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: `${chunk({ role: 'assistant', content: 'It was a dark' }, null)}${chunk({ content: ' and' }, 'length')}data: [DONE]\n\n`,
};

describe('the Responses answers against the OpenAI OpenAPI document', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: 'hello from the mock' } } }, { LLM__MAX_ATTEMPTS: '1' });
  });
  afterAll(() => h.close());
  const streamed = async (body: Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream'>) => {
    const types: string[] = [];
    for await (const event of await h.openai().responses.create({ ...body, stream: true })) types.push(event.type);
    return types;
  };

  it('names the event, the schema and the path of what drifts', () => {
    const events = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":0,"output_index":0,"content_index":0,"delta":"hi","logprobs":[]}\n\n: keep-alive\n\nevent: response.done\ndata: {"type":"response.completed","sequence_number":1}\n\n';
    const drifts = exchangeDrifts(undefined, 200, 'text/event-stream', events);
    expect(drifts).toContain("event #0 response.output_text.delta (ResponseStreamEvent): (root) must have required property 'item_id' (#/required)");
    expect(drifts).toContain('event #1 response.completed: its SSE event name is response.done');
    expect(drifts).toContain("event #1 response.completed (ResponseStreamEvent): (root) must have required property 'response' (#/required)");
    expect(exchangeDrifts(undefined, 200, 'text/event-stream', 'data: {"type":"response.nope"}\n\n')).toEqual([
      'event #0 response.nope: its SSE event name is missing',
      'event #0 response.nope (ResponseStreamEvent): /type must be equal to one of the allowed values (#/then/properties/type/enum)',
    ]);
    expect(exchangeDrifts(undefined, 200, 'application/json', '{"object":"response"}').join('\n')).toMatch(/^the answer \(Response\): \(root\) must have required property 'id'/);
    expect(exchangeDrifts(undefined, 502, 'application/json', '{"error":{"message":"x"}}').join('\n')).toContain("the 502 answer (ErrorResponse): /error must have required property 'type'");
    expect(exchangeDrifts('{"model":"m","input":"hi","temperature":5}', 200, 'text/event-stream', '').join('\n')).toContain('the request (CreateResponse): /temperature must be <= 2');
    expect(exchangeDrifts(undefined, 200, 'application/json', 'not json')).toEqual(['the answer: not JSON: not json']);
  });

  it('a custom tool call, whole and streamed, and its output taken back', async () => {
    const shell = { kind: 'tool_calls' as const, calls: [{ id: 'call_sh', name: 'shell', arguments: 'ls -la', custom: true }] };
    h.mock.setSource('main', { steps: [shell, shell], content: 'two files' });
    const whole = await h.openai().responses.create({ model: 'gpt-4o-mini', input: 'list the files' });
    expect(whole.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', call_id: 'call_sh', name: 'shell', input: 'ls -la' })]);
    expect(await streamed({ model: 'gpt-4o-mini', input: 'list the files' })).toContain('response.output_item.done');
    const answered = await h.openai().responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'user', content: 'list the files' },
        { type: 'custom_tool_call', call_id: 'call_sh', name: 'shell', input: 'ls -la' },
        { type: 'custom_tool_call_output', call_id: 'call_sh', output: 'a b' },
      ],
    });
    expect(answered.output_text).toBe('two files');
  });

  it('a reasoning item, whole and streamed', async () => {
    h.mock.setSource('main', { content: 'forty-two', reasoning: 'six times seven' });
    const whole = await h.openai().responses.create({ model: 'gpt-4o-mini', input: 'the answer?', reasoning: { effort: 'low' } });
    expect(whole.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(await streamed({ model: 'gpt-4o-mini', input: 'the answer?' })).toContain('response.reasoning_summary_text.delta');
  });

  it('an answer cut at max_output_tokens is incomplete, whole and streamed', async () => {
    h.mock.setSource('main', { steps: [cutAnswer, cutStream] });
    const whole = await h.openai().responses.create({ model: 'gpt-4o-mini', input: 'a story', max_output_tokens: 16 });
    expect(whole).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect((await streamed({ model: 'gpt-4o-mini', input: 'a story', max_output_tokens: 16 })).at(-1)).toBe('response.incomplete');
  });

  it('text.format json_schema streamed', async () => {
    h.mock.setSource('main', { content: '{"name":"Ada"}' });
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
    const types = await streamed({ model: 'gpt-4o-mini', input: 'who?', text: { format: { type: 'json_schema', name: 'person', schema, strict: true } } });
    expect(types.at(-1)).toBe('response.completed');
  });

  it('an upstream failure before the first token is an error answer, whole and streamed', async () => {
    h.mock.setSource('main', { otherwise: { kind: 'status', status: 500 } });
    for (const stream of [false, true]) {
      const error = await h
        .openai()
        .responses.create({ model: 'gpt-4o-mini', input: 'hi', stream })
        .then(() => undefined, (failed: unknown) => failed);
      expect(error, `stream: ${stream}`).toBeInstanceOf(OpenAI.InternalServerError);
    }
    h.mock.setSource('main', { content: 'hello from the mock' });
  });

  it('checks the bytes the server sent, not what the SDK made of them', async () => {
    const dropping = await startHarness(undefined, {}, [], {
      // What the SDK never notices: a whole answer without its `created_at`.
      beforeListen: (server) => server.app.addHook('onSend', async (request, _reply, payload) => (request.url === '/v1/responses' ? JSON.stringify({ ...JSON.parse(String(payload)), created_at: undefined }) : payload)),
    });
    try {
      await dropping.openai().responses.create({ model: 'gpt-4o-mini', input: 'hi' });
      expect(await takeResponsesDrifts()).toContain("the answer (Response): (root) must have required property 'created_at' (#/allOf/2/required)");
    } finally {
      await dropping.close();
    }
  });
});
