/**
 * The policy a key carries, through the official openai SDK against a real server on loopback: the
 * models it may call (any other is a 404 like an unknown model's), its priority (which
 * `x-pgw-priority` may only lower) reaching the governed call, and the tenant's own full quota as a
 * 429 in each protocol's shape.
 */
import Anthropic from '@anthropic-ai/sdk';
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
const priorities: (string | undefined)[] = [];
beforeAll(async () => {
  h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify(KEYS), PGW_SERVER__MODELS: JSON.stringify(MODELS) }, [
    {
      onCallStart: (event) => {
        tenants.push(event.call.tenantId);
        priorities.push(event.call.priority);
      },
    },
  ]);
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
    priorities.length = 0;
    expect(await served(OPEN)).toBe('interactive');
    expect(await served(OPEN, 'batch')).toBe('batch');
    expect(await served(OPEN, 'interactive')).toBe('interactive');
    expect(await served(BATCH)).toBe('batch');
    expect(await served(BATCH, 'interactive')).toBe('batch');
    // The class reached the governed call, not only the answer's header.
    expect(priorities).toEqual(['interactive', 'batch', 'interactive', 'batch', 'batch']);
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
  let full: Harness;
  beforeAll(async () => {
    // One call a minute per tenant, failing fast: a tenant's second call finds its own gate full, another tenant's call does not.
    full = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify(KEYS), LLM__TENANT__RPM: '1', LLM__QUOTA_FULL: 'fail_fast' });
  });
  afterAll(() => full.close());

  it('is a 429 tenant_quota_full with Retry-After in whole seconds in OpenAI’s shape, and Anthropic’s rate_limit_error', async () => {
    await full.openai(OPEN).chat.completions.create({ model: 'gpt-4o-mini', messages: hi });
    const error = (await failureOf(full.openai(OPEN).chat.completions.create({ model: 'gpt-4o-mini', messages: hi }))) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.error).toMatchObject({ type: 'rate_limit_exceeded', code: 'tenant_quota_full' });
    const exactMs = Number(error.headers.get('retry-after-ms'));
    expect(exactMs).toBeGreaterThan(0);
    expect(Number(error.headers.get('retry-after'))).toBe(Math.max(1, Math.ceil(exactMs / 1000)));
    const anthropic = new Anthropic({ baseURL: full.url, apiKey: OPEN, maxRetries: 0 });
    const refused = (await failureOf(anthropic.messages.create({ model: 'gpt-4o-mini', max_tokens: 16, messages: hi }))) as InstanceType<typeof Anthropic.RateLimitError>;
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    // Another tenant's bound is its own.
    expect((await full.openai(MINI).chat.completions.create({ model: 'gpt-4o-mini', messages: hi })).choices).toHaveLength(1);
  });
});
