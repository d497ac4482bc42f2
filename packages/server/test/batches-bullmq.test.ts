/**
 * The door's batches on the bullmq engine (`PGW_BATCH__ENGINE=bullmq`): the queue on the shared Redis,
 * batches and files in PostgreSQL (a schema of this test's own, dropped after), driven through the
 * official openai SDK, and Anthropic's message batches through `@anthropic-ai/sdk`. The jobs' queue
 * keys are removed from Redis when done.
 */
import { randomBytes } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageBatch } from '@anthropic-ai/sdk/resources/messages';
import { Queue } from 'bullmq';
import OpenAI, { toFile } from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const PG_DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `server_batch_${randomBytes(5).toString('hex')}`;
const ITEMS = 20;

const chatLine = (index: number) =>
  JSON.stringify({ custom_id: `req-${index}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `question ${index}` }], max_tokens: 16 } });

async function sql(text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: PG_DSN });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

let h: Harness;
const jobs: string[] = [];
beforeAll(async () => {
  await sql(`CREATE SCHEMA "${schema}"`);
  const dsn = `${PG_DSN}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  h = await startHarness({ sources: { main: { content: 'queued answer' } } }, { PGW_SERVER__KEYS: JSON.stringify({ 'key-acme': 'acme', 'key-globex': 'globex' }), PGW_BATCH__ENGINE: 'bullmq', PGW_BATCH__DSN: dsn, REDIS_URL });
});
afterAll(async () => {
  await h?.close();
  for (const job of jobs) {
    const queue = new Queue(job, { connection: { url: REDIS_URL }, prefix: '{pgw-batch}' });
    await queue.obliterate({ force: true });
    await queue.close();
  }
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

it('the openai SDK runs a batch on the bullmq engine: files and batches in PostgreSQL, each custom_id once', { timeout: 60_000 }, async () => {
  const client = h.openai('key-acme');
  const file = await client.files.create({ file: await toFile(Buffer.from(`${Array.from({ length: ITEMS }, (_, index) => chatLine(index)).join('\n')}\n`), 'input.jsonl'), purpose: 'batch' });
  const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  jobs.push(created.id);
  let batch: OpenAI.Batch;
  do {
    batch = await client.batches.retrieve(created.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
  } while (!['completed', 'cancelled', 'failed', 'expired'].includes(batch.status));
  expect(batch).toMatchObject({ status: 'completed', request_counts: { total: ITEMS, completed: ITEMS, failed: 0 } });
  const ids = (await (await client.files.content(batch.output_file_id!)).text()).trim().split('\n').map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
  expect(ids).toHaveLength(ITEMS);
  expect(new Set(ids).size).toBe(ITEMS);
  expect(h.mock.counters('main').chat).toBe(ITEMS);
  // The store is PostgreSQL: the files and the batch are rows of this test's schema, the tenant's only.
  expect((await sql(`SELECT count(*)::int AS n FROM "${schema}".pgw_batch_files WHERE tenant_id = 'acme'`)).rows[0].n).toBe(2);
  expect((await sql(`SELECT tenant_id FROM "${schema}".pgw_batch_jobs WHERE id = '${created.id}'`)).rows[0].tenant_id).toBe('acme');
  await expect(h.openai('key-globex').batches.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  await expect(h.openai('key-globex').files.content(file.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  expect((await client.batches.list()).data.map((item) => item.id)).toEqual([created.id]);
});

it('the Anthropic SDK runs a message batch on the bullmq engine: the batch in PostgreSQL, each custom_id once, then deleted', { timeout: 60_000 }, async () => {
  const client = new Anthropic({ baseURL: h.url, apiKey: 'key-acme', maxRetries: 0 });
  const before = h.mock.counters('main').chat;
  const requests = Array.from({ length: ITEMS }, (_, index) => ({ custom_id: `req-${index}`, params: { model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user' as const, content: `question ${index}` }] } }));
  const created = await client.messages.batches.create({ requests });
  jobs.push(created.id);
  let batch: MessageBatch;
  do {
    batch = await client.messages.batches.retrieve(created.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
  } while (batch.processing_status !== 'ended');
  expect(batch.request_counts).toEqual({ processing: 0, succeeded: ITEMS, errored: 0, canceled: 0, expired: 0 });
  const ids: string[] = [];
  for await (const line of await client.messages.batches.results(created.id)) {
    expect(line.result).toMatchObject({ type: 'succeeded', message: { type: 'message', content: [{ type: 'text', text: 'queued answer' }] } });
    ids.push(line.custom_id);
  }
  expect(ids).toEqual(requests.map((request) => request.custom_id));
  expect(h.mock.counters('main').chat - before).toBe(ITEMS);
  expect((await sql(`SELECT tenant_id FROM "${schema}".pgw_batch_jobs WHERE id = '${created.id}'`)).rows[0].tenant_id).toBe('acme');
  await expect(new Anthropic({ baseURL: h.url, apiKey: 'key-globex', maxRetries: 0 }).messages.batches.retrieve(created.id)).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  expect((await client.messages.batches.list()).data.map((item) => item.id)).toEqual([created.id]);
  expect((await h.openai('key-acme').batches.list()).data.map((item) => item.id)).not.toContain(created.id);
  await client.messages.batches.delete(created.id);
  expect((await client.messages.batches.list()).data).toEqual([]);
});
