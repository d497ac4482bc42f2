/**
 * The policy a key carries, through the official openai SDK against a real server on loopback: the
 * models it may call (any other is a 404 like an unknown model's), its priority (which
 * `x-pgw-priority` may only lower), and the tenant's full quota as a 429 in every protocol's shape.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GatewayUnavailableError } from '@pgw/client';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rawRequest } from './raw-http.js';
import { startHarness, type Harness } from './helpers.js';

const OPEN = 'sk-open-00000001';
const MINI = 'sk-mini-00000002';
const BATCH = 'sk-batch-0000003';
const KEYS = {
  [OPEN]: 'team-open',
  [MINI]: { tenant: 'team-mini', models: ['gpt-4o-mini'] },
  [BATCH]: { tenant: 'team-batch', priority: 'batch' },
};
const MODELS = { 'gpt-4o-mini': 'LLM', 'gpt-4o': 'LLM', 'text-embedding-3-small': 'EMBED' };
const hi = [{ role: 'user' as const, content: 'hi' }];

let h: Harness;
const tenants: (string | undefined)[] = [];
beforeAll(async () => {
  h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify(KEYS), PGW_SERVER__MODELS: JSON.stringify(MODELS) }, [{ onCallStart: (event) => tenants.push(event.call.tenantId) }], {
    beforeListen: (server) => {
      const full = () => {
        throw new GatewayUnavailableError({ scope: 'LLM', reason: 'tenant_quota_full', retryAfterMs: 1500 });
      };
      server.app.post('/v1/full', { config: { protected: true } }, full);
      server.app.post('/v1/full-anthropic', { config: { protected: true, protocol: 'anthropic' } }, full);
    },
  });
});
afterAll(() => h.close());

const failureOf = (promise: Promise<unknown>) => promise.then(() => expect.fail('the call was served'), (error: unknown) => error);

describe('a key limited to some models', () => {
  it('is served its model, and gets for another the 404 an unknown model gets', async () => {
    const mini = h.openai(MINI);
    expect((await mini.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })).choices[0]!.message.content).toMatch(/hello/);
    const hidden = (await failureOf(mini.chat.completions.create({ model: 'gpt-4o', messages: hi }))) as InstanceType<typeof OpenAI.NotFoundError>;
    const unknown = (await failureOf(h.openai(OPEN).chat.completions.create({ model: 'gpt-5-nope', messages: hi }))) as InstanceType<typeof OpenAI.NotFoundError>;
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    const shape = (error: InstanceType<typeof OpenAI.NotFoundError>, model: string) => ({ ...(error.error as object), message: (error.error as { message: string }).message.replace(model, '<model>') });
    expect(shape(hidden, 'gpt-4o')).toEqual(shape(unknown, 'gpt-5-nope'));
    // The other key calls the same model.
    expect((await h.openai(OPEN).chat.completions.create({ model: 'gpt-4o', messages: hi })).choices).toHaveLength(1);
  });

  it('gets the 404 on every protocol route, and sees only its models in the list', async () => {
    const mini = h.openai(MINI);
    expect(await failureOf(mini.responses.create({ model: 'gpt-4o', input: 'hi' }))).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await failureOf(mini.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }))).toBeInstanceOf(OpenAI.NotFoundError);
    const anthropic = new Anthropic({ baseURL: h.url, apiKey: MINI, maxRetries: 0 });
    const refused = await failureOf(anthropic.messages.create({ model: 'gpt-4o', max_tokens: 16, messages: hi }));
    expect(refused).toBeInstanceOf(Anthropic.NotFoundError);
    expect((refused as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect((await mini.models.list()).data.map((model) => model.id)).toEqual(['gpt-4o-mini']);
    expect((await h.openai(OPEN).models.list()).data.map((model) => model.id)).toEqual(Object.keys(MODELS));
  });
});

describe('a key’s priority and x-pgw-priority', () => {
  const served = async (key: string, priority?: string) => {
    const { response } = await h
      .openai(key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: hi }, priority === undefined ? {} : { headers: { 'x-pgw-priority': priority } })
      .withResponse();
    return response.headers.get('x-pgw-priority');
  };

  it('serves a call at its key’s priority, which the header lowers and never raises', async () => {
    expect(await served(OPEN)).toBe('interactive');
    expect(await served(OPEN, 'batch')).toBe('batch');
    expect(await served(OPEN, 'interactive')).toBe('interactive');
    expect(await served(BATCH)).toBe('batch');
    expect(await served(BATCH, 'interactive')).toBe('batch');
  });

  it('refuses any other value with a 400 naming the header, before the call, in each protocol’s shape', async () => {
    const calls = tenants.length;
    const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: hi });
    for (const value of ['urgent', 'BATCH', 'batch;q=1', '%62atch', 'batch, interactive', '\xe9batch']) {
      const answer = await rawRequest(h.url, post('/v1/chat/completions', chat, { authorization: `Bearer ${OPEN}`, 'x-pgw-priority': value }));
      expect(answer.status, value).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { param: 'x-pgw-priority', code: 'invalid_value', type: 'invalid_request_error' } });
      expect(answer.body).not.toContain(value);
    }
    // Sent twice, even with the same value, it is not one class.
    const twice = `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${OPEN}\r\nx-pgw-priority: batch\r\nx-pgw-priority: batch\r\ncontent-type: application/json\r\ncontent-length: ${chat.length}\r\n\r\n${chat}`;
    expect((await rawRequest(h.url, twice)).status).toBe(400);
    // A header that smuggles a second line is split by HTTP itself: the second line is a header of its own, not part of the class.
    const smuggled = await rawRequest(h.url, post('/v1/chat/completions', chat, { authorization: `Bearer ${OPEN}`, 'x-pgw-priority': 'batch\r\nx-pgw-priority: interactive' }));
    expect(smuggled.status).toBe(400);
    const messages = JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 16, messages: hi });
    const anthropic = await rawRequest(h.url, post('/v1/messages', messages, { 'x-api-key': OPEN, 'x-pgw-priority': 'urgent' }));
    expect(anthropic.status).toBe(400);
    expect(JSON.parse(anthropic.body)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('x-pgw-priority') } });
    expect(tenants.length, 'no call was made').toBe(calls);
  });
});

describe('a tenant’s full quota', () => {
  it('is a 429 with Retry-After in whole seconds, rounded up, in OpenAI’s shape', async () => {
    const error = (await failureOf(h.openai(OPEN).post('/full', { body: {} }))) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers.get('retry-after')).toBe('2');
    expect(error.headers.get('retry-after-ms')).toBe('1500');
    expect(error.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'tenant_quota_full' });
  });

  it('is a 429 rate_limit_error in Anthropic’s shape', async () => {
    const anthropic = new Anthropic({ baseURL: h.url, apiKey: OPEN, maxRetries: 0 });
    const error = (await failureOf(anthropic.post('/v1/full-anthropic', { body: {} }))) as InstanceType<typeof Anthropic.RateLimitError>;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.headers.get('retry-after')).toBe('2');
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });
});
