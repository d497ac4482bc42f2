import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const ask = (client: OpenAI, model = 'gpt-4o-mini') =>
  client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);

describe('errors in the openai SDK classes', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('401 without a configured key, and the key tenant on the call', async () => {
    const tenants: (string | undefined)[] = [];
    const keys = { PGW_SERVER__KEYS: JSON.stringify({ 'sk-tenant-a-0001': 'tenant-a' }) };
    h = await startHarness(undefined, keys, [{ onCallStart: (event) => tenants.push(event.call.tenantId) }]);
    const missing = await ask(h.openai('sk-wrong-key-000'));
    expect(missing).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(JSON.stringify(missing)).not.toContain('sk-wrong-key-000');
    const ok = await h.openai('sk-tenant-a-0001').chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.choices[0]!.message.content).toMatch(/hello/);
    expect(tenants).toEqual(['tenant-a']);
  });

  it('404 for a model the model map does not name', async () => {
    h = await startHarness(undefined, { PGW_SERVER__MODELS: JSON.stringify({ 'gpt-4o-mini': 'LLM' }) });
    const error = await ask(h.openai(), 'no-such-model');
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('429 with Retry-After when the quota is full and the scope fails fast', async () => {
    h = await startHarness(undefined, { LLM__SOURCE__MAIN__RPM: '1', LLM__QUOTA_FULL: 'fail_fast' });
    await h.openai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const error = await ask(h.openai());
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const { headers } = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The exact wait for the clients that read it (the official SDKs prefer it to whole seconds).
    const exactMs = Number(headers.get('retry-after-ms'));
    expect(exactMs).toBeGreaterThan(0);
    expect(Math.max(1, Math.ceil(exactMs / 1000))).toBe(Number(headers.get('retry-after')));
    expect(headers.get('x-should-retry')).toBeNull();
  });

  it('429 insufficient_quota with Retry-After and the reset time when the key tenant spent its budget', async () => {
    const price = JSON.stringify({ inputPerMTok: 1_000, outputPerMTok: 1_000 });
    h = await startHarness(undefined, {
      PGW_SERVER__KEYS: JSON.stringify({ 'sk-tenant-b-0001': 'tenant-b', 'sk-tenant-c-0001': 'tenant-c' }),
      LLM__BUDGET__USD: '0.05',
      LLM__BUDGET__PER: 'tenant',
      LLM__SOURCE__MAIN__PRICING: price,
      LLM__SOURCE__MAIN__EST_TOKENS: '10',
    });
    const spender = h.openai('sk-tenant-b-0001');
    let error: unknown;
    for (let call = 0; call < 20 && error === undefined; call++) {
      error = await spender.chat.completions
        .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 })
        .then(() => undefined, (failed: unknown) => failed);
    }
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const refused = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(refused.type).toBe('insufficient_quota');
    expect(refused.code).toBe('budget_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Date.parse(refused.headers.get('x-pgw-budget-reset') ?? '')).toBeGreaterThan(Date.now());
    // A spent budget does not come back within a retry: the official SDKs stop on this header.
    expect(refused.headers.get('x-should-retry')).toBe('false');
    // Another key's tenant has a budget of its own.
    const other = await h.openai('sk-tenant-c-0001').chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 });
    expect(other.choices[0]!.message.content).toMatch(/hello/);
  });

  it('503 with Retry-After when every attempt failed', async () => {
    h = await startHarness({ sources: { main: { otherwise: { kind: 'status', status: 500 } } } });
    const error = await ask(h.openai());
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(503);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('504 when the call deadline expires', async () => {
    h = await startHarness({ sources: { main: { latencyMs: 5_000 } } }, { LLM__CALL_DEADLINE_S: '0.2' });
    const error = await ask(h.openai());
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(504);
  });

  it('400 for an upstream rejection, and for invalid JSON and an oversized body (nothing sent upstream)', async () => {
    h = await startHarness({ sources: { main: { steps: [{ kind: 'context_length_exceeded' }] } } }, { PGW_SERVER__MAX_REQUEST_MB: '0.001' });
    const rejected = await ask(h.openai());
    expect(rejected).toBeInstanceOf(OpenAI.BadRequestError);
    expect((rejected as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    const sent = h.mock.counters('main').chat;
    const invalid = await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'body' } });
    const big = await ask(h.openai().withOptions({}), 'x'.repeat(2000));
    expect((big as { status?: number }).status).toBe(413);
    expect(h.mock.counters('main').chat).toBe(sent);
  });
});
