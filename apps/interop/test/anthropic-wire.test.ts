/**
 * The loopback Anthropic Messages server, on the wire: the bodies and the event order of
 * Anthropic's published examples (the real `@ai-sdk/anthropic` provider is driven against it in
 * packages/ai-sdk).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicWire, type AnthropicWireServer } from '../src/index.js';
import { post } from './helpers.js';

let wire: AnthropicWireServer;
beforeAll(async () => {
  wire = await startAnthropicWire();
});
afterAll(() => wire?.close());

const KEY = { 'x-api-key': 'sk-ant-wire', 'anthropic-version': '2023-06-01' };
const body = (extra: object = {}) => ({ model: 'claude-sonnet-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }], ...extra });

/** `[event, data]` of each SSE event. */
const events = (text: string): Array<[string, { type: string }]> =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      const [name, data] = event.split('\n');
      return [name!.slice('event: '.length), JSON.parse(data!.slice('data: '.length)) as { type: string }];
    });

describe('the Anthropic Messages wire on loopback', () => {
  it('answers a message with content blocks, stop_reason and usage', async () => {
    wire.script({ kind: 'message', text: 'Hi there', usage: { input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 0 } });
    const res = await post(`${wire.baseUrl}/messages`, body(), KEY);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Hi there' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 3 },
    });
    expect(wire.requests.at(-1)!.body).toMatchObject({ max_tokens: 32 });
  });

  it('streams message_start, ping, content blocks with their deltas, message_delta, message_stop', async () => {
    wire.script({ kind: 'message', text: 'one two', toolUse: { id: 'toolu_1', name: 'f', input: { a: 1 } } });
    const res = await post(`${wire.baseUrl}/messages`, body({ stream: true }), KEY);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const seen = events(res.text);
    expect(seen.every(([name, data]) => name === data.type)).toBe(true);
    expect(seen.map(([name]) => name)).toEqual([
      'message_start', 'ping',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    const json = seen.filter(([, d]) => (d as { delta?: { type?: string } }).delta?.type === 'input_json_delta');
    expect(json.map(([, d]) => (d as unknown as { delta: { partial_json: string } }).delta.partial_json).join('')).toBe('{"a":1}');
    expect(seen.at(-2)![1]).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('answers errors in Anthropic’s shape, with their headers; no key is a 401', async () => {
    wire.script({ kind: 'error', status: 429, type: 'rate_limit_error', headers: { 'retry-after': '4' } });
    const limited = await post(`${wire.baseUrl}/messages`, body(), KEY);
    expect([limited.status, limited.headers['retry-after']]).toEqual([429, '4']);
    expect(JSON.parse(limited.text)).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'rate_limit_error' }, request_id: 'req_loopback' });
    const anonymous = await post(`${wire.baseUrl}/messages`, body(), { authorization: '' });
    expect(anonymous.status).toBe(401);
  });

  it('a stream may end in an error event', async () => {
    wire.script({ kind: 'stream_error', type: 'overloaded_error', afterEvents: 2 });
    const res = await post(`${wire.baseUrl}/messages`, body({ stream: true }), KEY);
    expect(events(res.text).map(([name]) => name)).toEqual(['message_start', 'ping', 'error']);
  });
});
