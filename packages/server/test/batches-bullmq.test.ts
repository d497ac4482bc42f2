/**
 * The door's batches on the bullmq engine (`PGW_BATCH__ENGINE=bullmq`): the queue on the shared Redis,
 * batches and files in PostgreSQL (a schema of this test's own, dropped after), driven through the
 * official openai SDK. The job's queue keys are removed from Redis when done.
 */
import { randomBytes } from 'node:crypto';
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
