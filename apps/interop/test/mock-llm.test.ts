import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlmConfig, type MockLlmServer } from '../src/index.js';
import { chat, post, sseData, streamedContent } from './helpers.js';

const REJECTION = { message: "Invalid 'messages': scripted rejection.", type: 'invalid_request_error', param: 'messages', code: 'invalid_value' };
const TOOL_CALL = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };

/** Rules are evaluated in order and the LAST match wins, so the catch-all echo comes first. */
const CONFIG: MockLlmConfig = {
  streaming: { chunkSize: 4, chunkIntervalMs: 1 },
  rules: [
    {
      path: '/v1/chat/completions',
      match: '@',
      response: {
        status: 200,
        content:
          '{"id":"chatcmpl-echo","object":"chat.completion","created":1,"model":"{{jmes request body.model}}","choices":[{"index":0,"message":{"role":"assistant","content":"echo: {{jmes request body.messages[-1].content}}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":3,"total_tokens":5}}',
      },
    },
    {
      path: '/v1/chat/completions',
      match: "contains(body.messages[-1].content, 'bad-request')",
      response: { status: 400, content: JSON.stringify({ error: REJECTION }) },
    },
    {
      path: '/v1/chat/completions',
      match: "contains(body.messages[-1].content, 'use-tool')",
      response: {
        status: 200,
        content: JSON.stringify({
          id: 'chatcmpl-tool',
          object: 'chat.completion',
          created: 1,
          model: 'interop-model',
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [TOOL_CALL] }, finish_reason: 'tool_calls' }],
        }),
      },
    },
  ],
};

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlm(CONFIG);
});
afterAll(() => server?.stop());

const chatUrl = () => `${server.url}/v1/chat/completions`;

describe('@dwmkerr/mock-llm 0.1.29', () => {
  it('answers a scripted chat completion as JSON', async () => {
    const res = await post(chatUrl(), chat('hello there'));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ choices: [{ message: { role: 'assistant', content: 'echo: hello there' }, finish_reason: 'stop' }] });
  });

  it('streams the same answer in chunks of chunkSize characters, then [DONE] (no usage chunk)', async () => {
    const res = await post(chatUrl(), chat('hello there', { stream: true, stream_options: { include_usage: true } }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const events = sseData(res.text);
    expect(events.at(-1)).toBe('[DONE]');
    expect(streamedContent(events)).toBe('echo: hello there');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0].finish_reason)).toEqual([...Array(chunks.length - 1).fill(null), 'stop']);
    expect(chunks.some((c) => 'usage' in c)).toBe(false);
  });

  it('reports an error rule as that HTTP status when not streaming', async () => {
    const res = await post(chatUrl(), chat('bad-request'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: REJECTION });
  });

  it('reports the same error INSIDE a 200 stream: one data: {"error"} event, then the body ends without [DONE]', async () => {
    const res = await post(chatUrl(), chat('bad-request', { stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.text).toBe(`data: ${JSON.stringify({ error: REJECTION })}\n\n`);
  });

  it('answers a scripted tool call (non-streamed)', async () => {
    const res = await post(chatUrl(), chat('use-tool', { tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }] }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [TOOL_CALL] },
      finish_reason: 'tool_calls',
    });
  });

  it('cannot stream a tool call: a content-less rule answers 500 with a JSON body labelled text/event-stream', async () => {
    const res = await post(chatUrl(), chat('use-tool', { stream: true }));
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'TypeError', status: 500 });
  });

  it('plays sequence rules in order, and configure() rewinds them', async () => {
    const answer = (content: string) =>
      JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
    const sequenced: MockLlmConfig = {
      rules: [0, 1].map((sequence) => ({ path: '/v1/chat/completions', sequence, response: { status: 200, content: answer(`turn ${sequence}`) } })),
    };
    const contents = async () => {
      const out: string[] = [];
      for (let i = 0; i < 2; i++) out.push(JSON.parse((await post(chatUrl(), chat('hi'))).text).choices[0].message.content);
      return out;
    };
    try {
      await server.configure(sequenced);
      expect(await contents()).toEqual(['turn 0', 'turn 1']);
      await server.configure(sequenced);
      expect(await contents()).toEqual(['turn 0', 'turn 1']);
    } finally {
      await server.configure(CONFIG);
    }
  });
});
