/** `/v1/files` and `/v1/batches` against the official openai SDK, over the sqlite batch engine in a temporary directory. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const chatLine = (index: number, model = 'gpt-4o-mini') =>
  JSON.stringify({ custom_id: `req-${index}`, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: `question ${index}` }], max_tokens: 16 } });
const jsonl = (lines: string[]) => toFile(Buffer.from(`${lines.join('\n')}\n`), 'input.jsonl');

async function finished(client: OpenAI, id: string): Promise<OpenAI.Batch> {
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (['completed', 'cancelled', 'failed', 'expired'].includes(batch.status)) return batch;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const KEYS = JSON.stringify({ 'key-acme': 'acme', 'key-globex': 'globex' });

describe('batches at the door', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pgw-server-batch-'));
    h = await startHarness({ sources: { main: { content: 'batched answer' } } }, { PGW_SERVER__KEYS: KEYS, PGW_BATCH__DIR: dir, PGW_SERVER__MAX_FILE_MB: '0.05' });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the openai SDK uploads, creates, polls until completed and reads each custom_id once', async () => {
    const client = h.openai('key-acme');
    const before = h.mock.counters('main').chat;
    const file = await client.files.create({ file: await jsonl(Array.from({ length: 30 }, (_, index) => chatLine(index))), purpose: 'batch' });
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'input.jsonl' });
    expect((await client.files.retrieve(file.id)).bytes).toBe(file.bytes);
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { run: 'nightly' } });
    expect(created).toMatchObject({ object: 'batch', input_file_id: file.id, metadata: { run: 'nightly' } });
    const batch = await finished(client, created.id);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 30, completed: 30, failed: 0 }, error_file_id: null });
    const text = await (await client.files.content(batch.output_file_id!)).text();
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as { custom_id: string; response: { status_code: number; body: OpenAI.ChatCompletion } });
    expect(lines.map((line) => line.custom_id).sort()).toEqual(Array.from({ length: 30 }, (_, index) => `req-${index}`).sort());
    expect(lines[0]!.response.status_code).toBe(200);
    expect(lines[0]!.response.body.choices[0]!.message.content).toBe('batched answer');
    expect(h.mock.counters('main').chat - before).toBe(30);
    const listed = await client.batches.list({ limit: 10 });
    expect(listed.data.map((item) => item.id)).toContain(created.id);
  });

  it('a /v1/responses batch answers Responses objects; a responses line in a chat batch is refused with its line', async () => {
    const client = h.openai('key-acme');
    const responsesLine = (id: string) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/responses', body: { model: 'gpt-4o-mini', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }], max_output_tokens: 16 } });
    const file = await client.files.create({ file: await jsonl([responsesLine('resp-1'), responsesLine('resp-2')]), purpose: 'batch' });
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/responses', completion_window: '24h' });
    const batch = await finished(client, created.id);
    expect(batch).toMatchObject({ status: 'completed', endpoint: '/v1/responses', request_counts: { total: 2, completed: 2, failed: 0 } });
    const lines = (await (await client.files.content(batch.output_file_id!)).text()).trim().split('\n').map((line) => JSON.parse(line) as { custom_id: string; response: { body: OpenAI.Responses.Response } });
    expect(lines.map((line) => line.custom_id).sort()).toEqual(['resp-1', 'resp-2']);
    const body = lines[0]!.response.body;
    expect(body).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'batched answer' }] }] });
    expect(body.usage!.total_tokens).toBe(body.usage!.input_tokens + body.usage!.output_tokens);
    // OpenAI runs one endpoint per batch: a responses line among chat lines is refused with its number.
    const mixed = await client.files.create({ file: await jsonl([chatLine(1), responsesLine('resp-3'), chatLine(2)]), purpose: 'batch' });
    const refused = client.batches.create({ input_file_id: mixed.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'invalid_batch_line' });
    await expect(refused).rejects.toThrow(/line 2: url must be the batch's endpoint/);
  });

  it("another tenant's files and batches are not found, and not listed", async () => {
    const acme = h.openai('key-acme');
    const globex = h.openai('key-globex');
    const file = await acme.files.create({ file: await jsonl([chatLine(1)]), purpose: 'batch' });
    const batch = await acme.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await expect(globex.files.retrieve(file.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(globex.files.content(file.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(globex.batches.retrieve(batch.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(globex.batches.cancel(batch.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(globex.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await globex.batches.list()).data.map((item) => item.id)).not.toContain(batch.id);
    await finished(acme, batch.id);
  });

  it('refuses hostile input at the door: purpose, size, a bad line with its number, ids, list bounds', async () => {
    const client = h.openai('key-acme');
    await expect(client.files.create({ file: await jsonl([chatLine(1)]), purpose: 'fine-tune' })).rejects.toMatchObject({ status: 400, param: 'purpose' });
    const huge = await toFile(Buffer.alloc(0.06 * 1024 * 1024, 'x'), 'huge.jsonl');
    await expect(client.files.create({ file: huge, purpose: 'batch' })).rejects.toMatchObject({ status: 413, code: 'file_too_large' });
    const duplicate = await client.files.create({ file: await jsonl([chatLine(1), chatLine(1)]), purpose: 'batch' });
    const refused = client.batches.create({ input_file_id: duplicate.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'invalid_batch_line' });
    await expect(refused).rejects.toThrow(/line 2: custom_id/);
    const wrongEndpoint = await client.files.create({ file: await jsonl([chatLine(1)]), purpose: 'batch' });
    await expect(client.batches.create({ input_file_id: wrongEndpoint.id, endpoint: '/v1/embeddings', completion_window: '24h' })).rejects.toMatchObject({ status: 400 });
    await expect(client.batches.create({ input_file_id: 'file-../../etc', endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toMatchObject({ status: 400, param: 'input_file_id' });
    await expect(client.batches.create({ input_file_id: wrongEndpoint.id, endpoint: '/v1/chat/completions', completion_window: '48h' as '24h' })).rejects.toMatchObject({ status: 400 });
    await expect(client.batches.retrieve('batch_%2e%2e')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.files.retrieve('file-nothing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.batches.list({ limit: 1000 })).rejects.toMatchObject({ status: 400 });
    const unauthenticated = await fetch(`${h.url}/v1/batches`);
    expect(unauthenticated.status).toBe(401);
  });

  it('a cancelled batch ends cancelled, its finished items in its output', async () => {
    const client = h.openai('key-acme');
    h.mock.setSource('main', { content: 'slow answer', latencyMs: 50 });
    try {
      const file = await client.files.create({ file: await jsonl(Array.from({ length: 40 }, (_, index) => chatLine(index))), purpose: 'batch' });
      const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const cancelling = await client.batches.cancel(batch.id);
      expect(['cancelling', 'cancelled']).toContain(cancelling.status);
      const ended = await finished(client, batch.id);
      expect(ended.status).toBe('cancelled');
      expect(ended.request_counts!.completed).toBeLessThan(40);
    } finally {
      h.mock.setSource('main', { content: 'batched answer' });
    }
  });
});

describe('a /v1/responses batch line carries what its route carries', () => {
  let h: Harness;
  let dir: string;
  const usage = { prompt_tokens: 20, completion_tokens: 8, cached_tokens: 12, reasoning_tokens: 3 };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pgw-server-batch-wire-'));
    h = await startHarness({ sources: { main: {} } }, { PGW_SERVER__KEYS: KEYS, PGW_BATCH__DIR: dir });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function responsesBatch(body: Record<string, unknown>): Promise<OpenAI.Responses.Response> {
    const client = h.openai('key-acme');
    const line = JSON.stringify({ custom_id: 'wire-1', method: 'POST', url: '/v1/responses', body: { model: 'gpt-4o-mini', ...body } });
    const file = await client.files.create({ file: await jsonl([line]), purpose: 'batch' });
    const batch = await finished(client, (await client.batches.create({ input_file_id: file.id, endpoint: '/v1/responses', completion_window: '24h' })).id);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 1, completed: 1, failed: 0 }, error_file_id: null });
    const [output] = (await (await client.files.content(batch.output_file_id!)).text()).trim().split('\n');
    const { response } = JSON.parse(output!) as { response: { status_code: number; body: OpenAI.Responses.Response } };
    expect(response.status_code).toBe(200);
    // Usage details, as the route answers them: cached input tokens and reasoning tokens.
    expect(response.body.usage).toMatchObject({ input_tokens: 20, input_tokens_details: { cached_tokens: 12 }, output_tokens_details: { reasoning_tokens: 3 } });
    expect(response.body.usage!.total_tokens).toBe(20 + response.body.usage!.output_tokens);
    return response.body;
  }

  it('a line with tools answers the function_call item', async () => {
    h.mock.setSource('main', { usage, steps: [{ kind: 'tool_calls', calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] }] });
    const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const body = await responsesBatch({ input: 'Weather in Paris?', tools, tool_choice: 'auto' });
    expect(body.output).toEqual([expect.objectContaining({ type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' })]);
    expect(body.tools).toMatchObject([{ type: 'function', name: 'get_weather' }]);
    const sent = h.mock.requests('main').at(-1)!.body as { tools: { function: { name: string } }[] };
    expect(sent.tools.map((tool) => tool.function.name)).toEqual(['get_weather']);
  });

  it('a line with text.format json_schema answers the validated JSON as its output text', async () => {
    h.mock.setSource('main', { usage, content: 'Here: {"city":"Oslo","country":"Norway"}' });
    const schema = { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city', 'country'], additionalProperties: false };
    const body = await responsesBatch({ input: 'Capital of Norway?', text: { format: { type: 'json_schema', name: 'capital', schema, strict: true } } });
    expect(body.output).toMatchObject([{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '{"city":"Oslo","country":"Norway"}' }] }]);
    expect(body.text).toMatchObject({ format: { type: 'json_schema', name: 'capital' } });
  });
});

describe('batches across a restart', () => {
  it('a batch paused by the drain is resumed by the next server on the same store, each custom_id once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pgw-server-batch-restart-'));
    const env = { PGW_BATCH__DIR: dir, PGW_SERVER__KEYS: KEYS };
    const first = await startHarness({ sources: { main: { content: 'slow', latencyMs: 30 } } }, env);
    let second: Harness | undefined;
    try {
      const client = first.openai('key-acme');
      const file = await client.files.create({ file: await jsonl(Array.from({ length: 60 }, (_, index) => chatLine(index))), purpose: 'batch' });
      const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      while ((await client.batches.retrieve(batch.id)).request_counts!.completed < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      await first.server.drain(0);
      const paused = first.mock.counters('main').chat;
      second = await startHarness({ sources: { main: { content: 'resumed' } } }, env);
      const ended = await finished(second.openai('key-acme'), batch.id);
      expect(ended).toMatchObject({ status: 'completed', request_counts: { total: 60, completed: 60, failed: 0 } });
      const lines = (await (await second.openai('key-acme').files.content(ended.output_file_id!)).text()).trim().split('\n');
      const ids = lines.map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
      expect(new Set(ids).size).toBe(60);
      expect(ids).toHaveLength(60);
      // The second server sent only what the first had not recorded (plus at most the calls the drain abandoned).
      expect(second.mock.counters('main').chat).toBeLessThan(60);
      expect(paused).toBeGreaterThanOrEqual(5);
    } finally {
      await first.close();
      await second?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
