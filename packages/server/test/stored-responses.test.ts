/**
 * The Responses API's conversation state through the official openai SDK: a stored response is
 * continued by `previous_response_id` (whole and streamed, tool calls both ways), read and deleted by
 * id, kept per tenant for PGW_SERVER__RESPONSES_TTL_S, and — on the Redis governance backend —
 * continued by another server of the fleet.
 */
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const KEYS = JSON.stringify({ 'sk-team-a-0001': 'team-a', 'sk-team-b-0001': 'team-b' });
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const weather = { type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false };

const sentMessages = (h: Harness) => (h.mock.requests('main').at(-1)!.body as { messages: unknown[] }).messages;
const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe('stored responses on the memory backend', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sources: { main: { content: 'first answer' } } }, { PGW_SERVER__KEYS: KEYS });
  });
  afterAll(() => h.close());
  const teamA = () => h.openai('sk-team-a-0001');

  it('continues a stored response: its input and output come before the new input, its instructions do not', async () => {
    const first = await teamA().responses.create({ model: 'gpt-4o-mini', instructions: 'be brief', input: 'hello' });
    expect((first as unknown as { store: boolean }).store).toBe(true);
    h.mock.setSource('main', { content: 'second answer' });
    const second = await teamA().responses.create({ model: 'gpt-4o-mini', instructions: 'be kind', previous_response_id: first.id, input: 'and again' });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toBe('second answer');
    expect(sentMessages(h)).toEqual([
      { role: 'system', content: 'be kind' },
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'and again' },
    ]);
    // A chain: the third turn sees both before it.
    await teamA().responses.create({ model: 'gpt-4o-mini', previous_response_id: second.id, input: 'third' });
    expect(sentMessages(h)).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'and again' },
      { role: 'assistant', content: 'second answer' },
      { role: 'user', content: 'third' },
    ]);
  });

  it('a streamed response is stored before response.completed reaches the caller', async () => {
    h.mock.setSource('main', { content: 'streamed answer' });
    const stream = await teamA().responses.create({ model: 'gpt-4o-mini', input: 'stream it', stream: true });
    let id: string | undefined;
    for await (const event of stream) {
      if (event.type !== 'response.completed') continue;
      id = event.response.id;
      // Asked while the stream is still open: the record must already be there.
      expect((await teamA().responses.retrieve(id)).output_text).toBe('streamed answer');
    }
    await teamA().responses.create({ model: 'gpt-4o-mini', previous_response_id: id!, input: 'next' });
    expect(sentMessages(h)).toEqual([
      { role: 'user', content: 'stream it' },
      { role: 'assistant', content: 'streamed answer' },
      { role: 'user', content: 'next' },
    ]);
  });

  it('carries a function call across the continuation: the stored call, then its output', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_7', name: 'get_weather', arguments: { city: 'Rome' } }] }] });
    const asked = await teamA().responses.create({ model: 'gpt-4o-mini', input: 'weather in Rome?', tools: [weather] });
    h.mock.setSource('main', { content: 'Sunny in Rome' });
    const answered = await teamA().responses.create({
      model: 'gpt-4o-mini',
      tools: [weather],
      previous_response_id: asked.id,
      input: [{ type: 'function_call_output', call_id: 'call_7', output: 'sunny' }],
    });
    expect(answered.output_text).toBe('Sunny in Rome');
    expect(sentMessages(h)).toEqual([
      { role: 'user', content: 'weather in Rome?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
      { role: 'tool', tool_call_id: 'call_7', content: 'sunny' },
    ]);
  });

  it('reads and deletes a stored response by id; then it is gone for reading, deleting and continuing', async () => {
    h.mock.setSource('main', { content: 'kept' });
    const created = await teamA().responses.create({ model: 'gpt-4o-mini', input: 'keep me' });
    const read = await teamA().responses.retrieve(created.id);
    expect(read).toMatchObject({ id: created.id, status: 'completed', output: created.output, usage: created.usage });
    const deleted = await fetch(`${h.url}/v1/responses/${created.id}`, { method: 'DELETE', headers: { authorization: 'Bearer sk-team-a-0001' } });
    expect(await deleted.json()).toEqual({ id: created.id, object: 'response', deleted: true });
    expect(await failureOf(teamA().responses.retrieve(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failureOf(teamA().responses.delete(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await failureOf(teamA().responses.create({ model: 'gpt-4o-mini', previous_response_id: created.id, input: 'more' }));
    expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
  });

  it('keeps nothing with store: false', async () => {
    const unkept = await teamA().responses.create({ model: 'gpt-4o-mini', input: 'forget me', store: false });
    expect((unkept as unknown as { store: boolean }).store).toBe(false);
    expect(await failureOf(teamA().responses.retrieve(unkept.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("another tenant's response is not found: not read, not deleted, not continued", async () => {
    const mine = await teamA().responses.create({ model: 'gpt-4o-mini', input: 'private' });
    const teamB = h.openai('sk-team-b-0001');
    expect(await failureOf(teamB.responses.retrieve(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failureOf(teamB.responses.delete(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
    const before = h.mock.counters('main').chat;
    const continued = await failureOf(teamB.responses.create({ model: 'gpt-4o-mini', previous_response_id: mine.id, input: 'leak?' }));
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
    expect(h.mock.counters('main').chat).toBe(before);
    expect((await teamA().responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('needs the key to read or delete', async () => {
    const response = await fetch(`${h.url}/v1/responses/resp_x`, { headers: { authorization: 'Bearer sk-wrong-0000' } });
    expect(response.status).toBe(401);
  });
});

it('forgets a stored response after PGW_SERVER__RESPONSES_TTL_S', async () => {
  const h = await startHarness({ sources: { main: { content: 'short-lived' } } }, { PGW_SERVER__RESPONSES_TTL_S: '0.2' });
  try {
    const openai = h.openai();
    const created = await openai.responses.create({ model: 'gpt-4o-mini', input: 'hi' });
    expect((await openai.responses.retrieve(created.id)).id).toBe(created.id);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // 5× the TTL
    expect(await failureOf(openai.responses.retrieve(created.id))).toBeInstanceOf(OpenAI.NotFoundError);
  } finally {
    await h.close();
  }
});

it('on the Redis governance backend, another server of the fleet continues the conversation', async () => {
  const env = { PGW_LIMITER_BACKEND: 'redis', REDIS_URL, PGW_SERVER__KEYS: KEYS };
  const one = await startHarness({ sources: { main: { content: 'from server one' } } }, env);
  const two = await startHarness({ sources: { main: { content: 'from server two' } } }, env);
  try {
    const first = await one.openai('sk-team-a-0001').responses.create({ model: 'gpt-4o-mini', input: `hello ${randomUUID()}` });
    await two.openai('sk-team-a-0001').responses.create({ model: 'gpt-4o-mini', previous_response_id: first.id, input: 'go on' });
    const sent = (two.mock.requests('main').at(-1)!.body as { messages: { content: string }[] }).messages;
    expect(sent.map((message) => message.content)).toEqual([expect.stringMatching(/^hello /), 'from server one', 'go on']);
    expect(await failureOf(two.openai('sk-team-b-0001').responses.retrieve(first.id))).toBeInstanceOf(OpenAI.NotFoundError);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

it('a store that cannot be reached is a 503 with Retry-After, naming no internals', async () => {
  const h = await startHarness({ sources: { main: {} } }, { PGW_LIMITER_BACKEND: 'redis', REDIS_URL: 'redis://127.0.0.1:1' });
  try {
    const response = await fetch(`${h.url}/v1/responses/resp_missing`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ error: { type: 'service_unavailable', code: 'store_unavailable' } });
  } finally {
    await h.close();
  }
});
