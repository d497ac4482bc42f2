import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import {
  llmopsRouting,
  portkeyRouting,
  startLlmopsGateway,
  startMockLlm,
  startPortkeyGateway,
  type ChildServer,
  type MockLlmServer,
} from '../src/index.js';
import { chat, post, REJECTION, sseData, streamedContent } from './helpers.js';


/** Our mock behind the relays: one healthy source and one per failure the relays must pass on. */
const SOURCES = {
  good: { content: 'one two three' },
  inband: { content: 'one two three', otherwise: { kind: 'in_band_error' as const, afterTokens: 1, error: REJECTION } },
  rejects: { otherwise: { kind: 'status' as const, status: 400, body: { error: { ...REJECTION, code: null } } } },
  busy: { otherwise: { kind: 'rate_limit' as const, retryAfter: '7' } },
};

const RELAYS = [
  { name: '@portkey-ai/gateway 1.15.2', prefix: 'portkey', start: startPortkeyGateway, routing: portkeyRouting },
  { name: '@llmops/gateway 0.6.10', prefix: 'llmops', start: startLlmopsGateway, routing: llmopsRouting },
] as const;

const TOOL_CALL = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
const TOOL_ANSWER = {
  id: 'chatcmpl-tool',
  object: 'chat.completion',
  created: 1,
  model: 'interop-model',
  choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [TOOL_CALL] }, finish_reason: 'tool_calls' }],
};

let mock: MockUpstream;
/** A third-party upstream behind the relays, for a tool call answer. */
let mockLlm: MockLlmServer;
const relays = new Map<string, ChildServer>();

beforeAll(async () => {
  mock = await startMockUpstream({ script: { sources: SOURCES } });
  mockLlm = await startMockLlm({ rules: [{ path: '/v1/chat/completions', response: { status: 200, content: JSON.stringify(TOOL_ANSWER) } }] });
  for (const relay of RELAYS) relays.set(relay.prefix, await relay.start());
});
afterAll(async () => {
  await Promise.all([...relays.values(), mockLlm].map((server) => server?.stop()));
  await mock?.close();
});

describe.each(RELAYS)('$name in front of the mock upstream', ({ prefix, routing }) => {
  const chatUrl = () => `${relays.get(prefix)!.url}/v1/chat/completions`;
  const via = (source: string) => routing(mock.baseUrl(source));

  it(`refuses a request without its routing headers: 400, naming x-${prefix}-provider`, async () => {
    const res = await post(chatUrl(), chat('hi'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      status: 'failure',
      message: `Either x-${prefix}-config or x-${prefix}-provider header is required`,
    });
  });

  it('refuses an unknown provider and a non-loopback private custom host with 400', async () => {
    const unknown = await post(chatUrl(), chat('hi'), { ...via('good'), [`x-${prefix}-provider`]: 'no-such-provider' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text).message).toBe('Invalid provider passed');
    const metadata = await post(chatUrl(), chat('hi'), routing('http://169.254.169.254/v1'));
    expect(metadata.status).toBe(400);
    expect(JSON.parse(metadata.text).message).toBe('Invalid custom host');
  });

  it('forwards a routed chat completion to {custom-host}/chat/completions with our Authorization', async () => {
    mock.reset();
    const res = await post(chatUrl(), chat('hi'), via('good'));
    expect(res.status).toBe(200);
    expect(res.headers[`x-${prefix}-provider`]).toBe('openai');
    expect(JSON.parse(res.text)).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'one two three' } }] });
    const [seen] = mock.requests('good');
    expect(seen?.route).toBe('chat');
    expect(seen?.headers['authorization']).toBe('Bearer sk-interop-test');
    expect(Object.keys(seen?.headers ?? {}).filter((h) => h.startsWith(`x-${prefix}`))).toEqual([]);
  });

  it('passes an upstream 4xx on with its status, the message prefixed with "openai error: "', async () => {
    const res = await post(chatUrl(), chat('hi'), via('rejects'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      error: { message: 'openai error: bad input', type: 'invalid_request_error', param: null, code: null },
      provider: 'openai',
    });
  });

  it('passes a 429 on with its Retry-After, without retrying by itself', async () => {
    mock.reset();
    const res = await post(chatUrl(), chat('hi'), via('busy'));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers[`x-${prefix}-retry-attempt-count`]).toBe('0');
    expect(JSON.parse(res.text).error.code).toBe('rate_limit_exceeded');
    expect(mock.counters('busy').chat).toBe(1);
  });

  it('relays a tool call answer from mock-llm (non-streamed) with tool_calls and finish_reason intact', async () => {
    const res = await post(chatUrl(), chat('weather?', { tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }] }), routing(`${mockLlm.url}/v1`));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).choices[0]).toMatchObject({ message: { tool_calls: [TOOL_CALL] }, finish_reason: 'tool_calls' });
  });

  it('passes a 200 JSON body carrying an error on unchanged, still as 200', async () => {
    const res = await post(chatUrl(), chat('hi'), via('inband'));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ error: REJECTION });
  });
});

describe('@llmops/gateway 0.6.10 streams on Node', () => {
  const chatUrl = () => `${relays.get('llmops')!.url}/v1/chat/completions`;

  it('relays a stream chunk by chunk, usage chunk and [DONE] included', async () => {
    const res = await post(chatUrl(), chat('hi', { stream: true, stream_options: { include_usage: true } }), llmopsRouting(mock.baseUrl('good')));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const events = sseData(res.text);
    expect(events.at(-1)).toBe('[DONE]');
    expect(streamedContent(events)).toBe('one two three');
    expect(JSON.parse(events.at(-2)!)).toMatchObject({ choices: [], usage: { completion_tokens: 3 } });
  });

  it('relays an in-band error inside the 200 stream verbatim: chunk, data: {"error"}, [DONE]', async () => {
    const res = await post(chatUrl(), chat('hi', { stream: true }), llmopsRouting(mock.baseUrl('inband')));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const events = sseData(res.text);
    expect(events).toHaveLength(3);
    expect(streamedContent(events.slice(0, 1))).toBe('one ');
    expect(JSON.parse(events[1]!)).toEqual({ error: REJECTION });
    expect(events[2]).toBe('[DONE]');
  });

  it('relays embeddings', async () => {
    const res = await post(`${relays.get('llmops')!.url}/v1/embeddings`, { model: 'e', input: ['a', 'b'] }, llmopsRouting(mock.baseUrl('good')));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).data).toHaveLength(2);
  });

  it('answers an upstream error status for a stream request as plain JSON with that status', async () => {
    const res = await post(chatUrl(), chat('hi', { stream: true }), llmopsRouting(mock.baseUrl('rejects')));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
  });
});

describe('@portkey-ai/gateway 1.15.2 cannot pass an upstream body through on Node', () => {
  const chatUrl = () => `${relays.get('portkey')!.url}/v1/chat/completions`;

  it('answers every successful upstream stream with a bare 500 (TypeError: immutable headers in its Node build)', async () => {
    mock.reset();
    const res = await post(chatUrl(), chat('hi', { stream: true }), portkeyRouting(mock.baseUrl('good')));
    expect(res.status).toBe(500);
    expect(res.headers['x-portkey-gateway-exception']).toBe('true');
    expect(JSON.parse(res.text)).toEqual({ status: 'failure', message: 'Something went wrong' });
    expect(mock.counters('good').chat).toBe(1);
    // Its log and our response travel on different pipes: wait for the log line.
    await expect.poll(() => relays.get('portkey')!.output()).toContain('TypeError: immutable');
  });

  it('fails the same way on embeddings, which it also passes through untransformed', async () => {
    mock.reset();
    const res = await post(`${relays.get('portkey')!.url}/v1/embeddings`, { model: 'e', input: ['a'] }, portkeyRouting(mock.baseUrl('good')));
    expect(res.status).toBe(500);
    expect(res.headers['x-portkey-gateway-exception']).toBe('true');
    expect(mock.counters('good').embeddings).toBe(1);
  });

  it('still passes an upstream error status for a stream request on as JSON', async () => {
    const res = await post(chatUrl(), chat('hi', { stream: true }), portkeyRouting(mock.baseUrl('rejects')));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.type).toBe('invalid_request_error');
  });
});
