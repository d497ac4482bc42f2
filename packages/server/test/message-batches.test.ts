/**
 * `/v1/messages/batches` through the official `@anthropic-ai/sdk` (`messages.batches.*`), over the
 * sqlite batch engine in a temporary directory: the same jobs and runner as OpenAI's batches, in
 * Anthropic's shapes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageBatch, MessageBatchIndividualResponse, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const KEYS = JSON.stringify({ 'key-acme': 'acme', 'key-globex': 'globex', 'key-sonnet': { tenant: 'acme', models: ['claude-sonnet-4-5'] } });
const MODELS = JSON.stringify({ 'claude-sonnet-4-5': 'LLM', 'claude-haiku-4-5': 'LLM' });
const weather = { name: 'get_weather', description: 'weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

const ask = (text: string, extra: Partial<MessageCreateParamsNonStreaming> = {}): MessageCreateParamsNonStreaming => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 32,
  messages: [{ role: 'user', content: text }],
  ...extra,
});

async function ended(client: Anthropic, id: string): Promise<MessageBatch> {
  for (;;) {
    const batch = await client.messages.batches.retrieve(id);
    if (batch.processing_status === 'ended') return batch;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function resultsOf(client: Anthropic, id: string): Promise<Map<string, MessageBatchIndividualResponse['result']>> {
  const results = new Map<string, MessageBatchIndividualResponse['result']>();
  for await (const line of await client.messages.batches.results(id)) results.set(line.custom_id, line.result);
  return results;
}

describe('Anthropic Message Batches through @anthropic-ai/sdk', () => {
  let h: Harness;
  let dir: string;
  const anthropic = (apiKey = 'key-acme') => new Anthropic({ baseURL: h.url, apiKey, maxRetries: 0 });
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pgw-server-msgbatch-'));
    h = await startHarness({ sources: { main: { content: 'batched answer', usage: { prompt_tokens: 12, completion_tokens: 3 } } } }, { PGW_SERVER__KEYS: KEYS, PGW_SERVER__MODELS: MODELS, PGW_BATCH__DIR: dir });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a batch of text, tool and system requests, polls it until ended and reads each result once, with usage and content', async () => {
    const client = anthropic();
    const before = h.mock.counters('main').chat;
    const created = await client.messages.batches.create({
      requests: [
        { custom_id: 'text', params: ask('Hello') },
        { custom_id: 'tool', params: ask('Weather in Paris?', { tools: [weather], tool_choice: { type: 'auto' } }) },
        { custom_id: 'system', params: ask('Hi', { system: 'Answer in French.' }) },
        { custom_id: 'unknown-model', params: ask('Hi', { model: 'claude-nowhere' }) },
      ],
    });
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', archived_at: null, results_url: null, cancel_initiated_at: null });
    expect(created.id).toMatch(/^msgbatch_[0-9a-f]{24}$/);
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(24 * 60 * 60 * 1000);
    const batch = await ended(client, created.id);
    expect(batch.request_counts).toEqual({ processing: 0, succeeded: 3, errored: 1, canceled: 0, expired: 0 });
    expect(batch.results_url).toBe(`${h.url}/v1/messages/batches/${created.id}/results`);
    expect(Date.parse(batch.ended_at!)).toBeGreaterThanOrEqual(Date.parse(batch.created_at));
    const results = await resultsOf(client, created.id);
    expect([...results.keys()]).toEqual(['text', 'tool', 'system', 'unknown-model']);
    for (const id of ['text', 'tool', 'system']) {
      expect(results.get(id)).toMatchObject({ type: 'succeeded', message: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'batched answer' }], usage: { input_tokens: 12, output_tokens: 3 } } });
    }
    // A model no scope serves fails that request alone, in Anthropic's error shape.
    const unknown = results.get('unknown-model')!;
    expect(unknown).toMatchObject({ type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error' } } });
    expect(unknown.type === 'errored' && unknown.error.error.message).toContain('claude-nowhere');
    // What went upstream: three batch-class chat calls, the tool and the system prompt as the Messages route sends them.
    const sent = h.mock.requests('main').slice(before).map((request) => request.body as { messages: unknown[]; tools?: { function: { name: string } }[] });
    expect(sent).toHaveLength(3);
    expect(sent.find((body) => body.tools !== undefined)!.tools!.map((tool) => tool.function.name)).toEqual(['get_weather']);
    expect(sent.map((body) => body.messages[0])).toContainEqual({ role: 'system', content: 'Answer in French.' });
  });

  it('a request whose upstream fails is errored, its type as the Messages route would answer it', async () => {
    const client = anthropic();
    h.mock.setSource('main', { steps: [{ kind: 'status', status: 400 }] });
    try {
      const created = await client.messages.batches.create({ requests: [{ custom_id: 'bad-upstream', params: ask('Hi') }] });
      expect((await ended(client, created.id)).request_counts).toMatchObject({ succeeded: 0, errored: 1 });
      expect((await resultsOf(client, created.id)).get('bad-upstream')).toMatchObject({ type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error' } } });
    } finally {
      h.mock.setSource('main', { content: 'batched answer', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    }
  });

  it('cancels a running batch: it ends with its unrun requests canceled, each request in the results once', async () => {
    const client = anthropic();
    h.mock.setSource('main', { content: 'slow answer', latencyMs: 50 });
    try {
      const requests = Array.from({ length: 40 }, (_, index) => ({ custom_id: `slow-${index}`, params: ask(`question ${index}`) }));
      const created = await client.messages.batches.create({ requests });
      const canceling = await client.messages.batches.cancel(created.id);
      expect(['canceling', 'ended']).toContain(canceling.processing_status);
      expect(canceling.cancel_initiated_at).not.toBeNull();
      const batch = await ended(client, created.id);
      const counts = batch.request_counts;
      expect(counts.canceled).toBeGreaterThan(0);
      expect(counts.processing).toBe(0);
      expect(counts.succeeded + counts.errored + counts.canceled).toBe(40);
      const results = await resultsOf(client, created.id);
      expect([...results.keys()]).toEqual(requests.map((request) => request.custom_id));
      expect([...results.values()].filter((result) => result.type === 'canceled')).toHaveLength(counts.canceled);
      // Canceling an ended batch answers it as it is.
      expect((await client.messages.batches.cancel(created.id)).processing_status).toBe('ended');
    } finally {
      h.mock.setSource('main', { content: 'batched answer', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    }
  });

  it('lists the tenant’s batches newest first with after_id and before_id; delete removes an ended one only', async () => {
    const client = anthropic();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await client.messages.batches.create({ requests: [{ custom_id: `list-${index}`, params: ask('Hi') }] })).id);
    await Promise.all(ids.map((id) => ended(client, id)));
    const newest = [...ids].reverse();
    const first = await client.messages.batches.list({ limit: 2 });
    expect(first.data.map((batch) => batch.id)).toEqual(newest.slice(0, 2));
    expect(first).toMatchObject({ has_more: true, first_id: newest[0], last_id: newest[1] });
    const next = await client.messages.batches.list({ limit: 2, after_id: newest[1] });
    expect(next.data[0]!.id).toBe(newest[2]);
    const back = await client.messages.batches.list({ limit: 1, before_id: newest[1] });
    expect(back.data.map((batch) => batch.id)).toEqual([newest[0]]);
    expect(back.has_more).toBe(false);
    // OpenAI's batch list and Anthropic's are apart.
    expect((await h.openai('key-acme').batches.list()).data.map((batch) => batch.id)).not.toContain(ids[0]);

    expect(await client.messages.batches.delete(ids[0]!)).toEqual({ id: ids[0], type: 'message_batch_deleted' });
    await expect(client.messages.batches.retrieve(ids[0]!)).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    expect((await client.messages.batches.list({ limit: 100 })).data.map((batch) => batch.id)).not.toContain(ids[0]);
    h.mock.setSource('main', { content: 'slow answer', latencyMs: 200 });
    try {
      const running = await client.messages.batches.create({ requests: Array.from({ length: 20 }, (_, index) => ({ custom_id: `r-${index}`, params: ask('Hi') })) });
      await expect(client.messages.batches.delete(running.id)).rejects.toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } });
      await expect(client.messages.batches.results(running.id)).rejects.toThrow(/results_url/);
      await client.messages.batches.cancel(running.id);
      await ended(client, running.id);
    } finally {
      h.mock.setSource('main', { content: 'batched answer', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    }
  });

  it('refuses a bad body naming the field, in Anthropic’s error shape, and nothing is created', async () => {
    const client = anthropic();
    const refused = async (body: unknown) => {
      const error = (await client.messages.batches.create(body as Anthropic.Messages.Batches.BatchCreateParams).catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      return (error.error as { error: { message: string } }).error.message;
    };
    const listed = (await client.messages.batches.list({ limit: 1000 })).data.length;
    expect(await refused({ requests: [{ custom_id: 'a', params: ask('x') }, { custom_id: 'b', params: { ...ask('x'), max_tokens: 0 } }] })).toMatch(/^requests\[1\]\.params\.max_tokens /);
    expect(await refused({ requests: [{ custom_id: 'a', params: ask('x', { stream: true } as never) }] })).toMatch(/^requests\[0\]\.params\.stream must not be true/);
    expect(await refused({ requests: [{ custom_id: 'a', params: { ...ask('x'), messages: [{ role: 'user', content: [{ type: 'video' }] }] } }] })).toMatch(/^requests\[0\]\.params\.messages\[0\]\.content/);
    expect(await refused({ requests: [{ custom_id: 'a', params: 'text' }] })).toMatch(/^requests\[0\]\.params /);
    expect(await refused({ requests: [{ custom_id: 'a', params: ask('x') }, { custom_id: 'a', params: ask('y') }] })).toMatch(/^requests\[1\]\.custom_id /);
    expect(await refused({ requests: [{ custom_id: 'has space', params: ask('x') }] })).toMatch(/^requests\[0\]\.custom_id must match/);
    expect(await refused({ requests: [{ custom_id: 'x'.repeat(65), params: ask('x') }] })).toMatch(/^requests\[0\]\.custom_id/);
    expect(await refused({ requests: [] })).toMatch(/^requests /);
    expect(await refused({ requests: Array.from({ length: 100_001 }, (_, index) => ({ custom_id: `c${index}`, params: {} })) })).toMatch(/^requests must have at most 100000/);
    // A model outside the key's list is refused whole, whether or not the gateway serves it.
    const limited = anthropic('key-sonnet');
    const error = await limited.messages.batches.create({ requests: [{ custom_id: 'a', params: ask('x') }, { custom_id: 'b', params: ask('x', { model: 'claude-haiku-4-5' }) }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.APIError>).message).toContain('requests[1].params.model');
    expect((await client.messages.batches.list({ limit: 1000 })).data).toHaveLength(listed);
    await expect(client.messages.batches.list({ limit: 1001 })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(client.messages.batches.list({ after_id: 'msgbatch_../../x' })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(client.messages.batches.retrieve('msgbatch_%2e%2e')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    const unauthenticated = await fetch(`${h.url}/v1/messages/batches`);
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('another tenant’s batch is a not_found_error everywhere, and not listed; an OpenAI batch id is not a message batch', async () => {
    const acme = anthropic();
    const globex = anthropic('key-globex');
    const created = await acme.messages.batches.create({ requests: [{ custom_id: 'mine', params: ask('Hi') }] });
    await ended(acme, created.id);
    const notFound = { status: 404, error: { type: 'error', error: { type: 'not_found_error' } } };
    await expect(globex.messages.batches.retrieve(created.id)).rejects.toMatchObject(notFound);
    await expect(globex.messages.batches.cancel(created.id)).rejects.toMatchObject(notFound);
    await expect(globex.messages.batches.delete(created.id)).rejects.toMatchObject(notFound);
    const results = await fetch(`${h.url}/v1/messages/batches/${created.id}/results`, { headers: { 'x-api-key': 'key-globex' } });
    expect(results.status).toBe(404);
    expect((await globex.messages.batches.list()).data.map((batch) => batch.id)).not.toContain(created.id);
    await expect(h.openai('key-acme').batches.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    // The key as a bearer token reads it as well as in x-api-key.
    const bearer = await fetch(`${h.url}/v1/messages/batches/${created.id}`, { headers: { authorization: 'Bearer key-acme' } });
    expect(await bearer.json()).toMatchObject({ id: created.id, processing_status: 'ended' });
  });
});
