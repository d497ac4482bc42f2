/** `pgw batch`: the real binary against the loopback mock, its jobs in a SQLite file under PGW_BATCH__DIR. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import pg from 'pg';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BULLMQ_PREFIX } from '@pgw/batch-bullmq';
import { EXIT } from '../src/exit-codes.js';
import { readBatchJobs } from '../src/report/batch-jobs.js';
import { removeTempDirs, runCli, tempDir } from './run-cli.js';

let mock: MockUpstream;
/** A test that spawns the CLI four to six times (a tsx start-up each, seconds on a loaded machine). */
const SPAWNS_TIMEOUT_MS = 90_000;

beforeAll(async () => {
  mock = await startMockUpstream({
    port: 0,
    host: '127.0.0.1',
    seed: 1,
    script: {
      sources: {
        // gpt-4o-mini's table price: 11 × 0.15 + 5 × 0.6 USD per million tokens = 4.65e-6 USD a call.
        run: { usage: { prompt_tokens: 11, completion_tokens: 5 } },
        budget: { usage: { prompt_tokens: 11, completion_tokens: 5 } },
        dry: {},
        bad: {},
        emb: { embeddingDim: 4 },
        fleet: {},
      },
    },
  });
});

afterAll(async () => {
  await mock?.close();
  removeTempDirs();
});

const chatLine = (index: number, body: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: `q${index}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hello ${index}` }], max_tokens: 20, ...body } });

/** A working directory with an input file and the env of a chat scope on `source`. */
function setup(source: string, lines: string[]) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'in.jsonl'), `${lines.join('\n')}\n`);
  const env = {
    PGW_TELEMETRY_BACKEND: 'none',
    PGW_BATCH__DIR: join(cwd, 'jobs'),
    LLM__SOURCE__MOCK__BASE_URL: mock.baseUrl(source),
    LLM__SOURCE__MOCK__MODEL: 'gpt-4o-mini',
    EMBED__SOURCE__MOCK__BASE_URL: mock.baseUrl('emb'),
    EMBED__SOURCE__MOCK__MODEL: 'text-embedding-3-small',
  };
  return { cwd, env, read: (file: string) => readFileSync(join(cwd, file), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>) };
}

test('run writes each custom_id once, prints JSON progress lines off a terminal, and the same command again resumes the same job', { timeout: SPAWNS_TIMEOUT_MS }, async () => {
  const lines = [...Array.from({ length: 20 }, (_, index) => chatLine(index)), chatLine(20, { stream: true })];
  lines.push(JSON.stringify({ custom_id: 'e1', method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'a' } }));
  const { cwd, env, read } = setup('run', lines);
  const first = await runCli(['batch', 'run', 'in.jsonl', '--out', 'out.jsonl', '--concurrency', '4'], { cwd, env });
  expect(first.code, first.stderr).toBe(EXIT.ok);
  const progress = first.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  const last = progress.at(-1)!;
  // The job is named before its first item is sent, so a run stopped at once can still be found by its id.
  expect(progress[0]).toMatchObject({ job: last['job'], status: 'running', total: 22, done: 0, failed: 0 });
  expect(Object.keys(last).sort()).toEqual(['costUsd', 'done', 'failed', 'inFlight', 'job', 'status', 'total']);
  expect(last).toMatchObject({ status: 'completed', total: 22, done: 21, failed: 1, inFlight: 0 });
  // 20 chat calls and one embedding of a token or two (0.02 USD per million).
  expect(last['costUsd']).toBeGreaterThanOrEqual(20 * 4.65e-6);
  expect(last['costUsd']).toBeLessThan(20 * 4.65e-6 + 1e-7);
  expect(String(last['job'])).toMatch(/^batch_[0-9a-f]{24}$/);
  const results = read('out.jsonl');
  expect(results.map((line) => line['custom_id'])).toEqual([...Array.from({ length: 20 }, (_, index) => `q${index}`), 'e1']);
  expect(results[0]!['response']).toMatchObject({ status_code: 200, body: { object: 'chat.completion' } });
  expect(read('out.errors.jsonl')).toMatchObject([{ custom_id: 'q20', response: { status_code: 400 } }]);
  expect(mock.counters('run').chat).toBe(20);

  const again = await runCli(['batch', 'run', 'in.jsonl', '--out', 'out.jsonl'], { cwd, env });
  expect(again.code).toBe(EXIT.ok);
  expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).toMatchObject({ job: last['job'], status: 'completed', done: 21 });
  expect(mock.counters('run').chat).toBe(20);
  expect(read('out.jsonl')).toHaveLength(21);

  const status = await runCli(['batch', 'status', String(last['job']), '--json'], { cwd, env });
  expect(JSON.parse(status.stdout)).toMatchObject({ job: last['job'], status: 'completed', done: 21, failed: 1, out: join(cwd, 'out.jsonl') });

  // retry --failed runs the failed line again as a new attempt; it fails again (a batch chat line takes no tools), still once in the error file.
  const retried = await runCli(['batch', 'retry', String(last['job']), '--failed'], { cwd, env });
  expect(retried.code, retried.stderr).toBe(EXIT.ok);
  expect(retried.stderr).toContain('1 failed items to run again');
  expect(read('out.errors.jsonl')).toMatchObject([{ custom_id: 'q20', response: { status_code: 400 } }]);
  expect(read('out.jsonl')).toHaveLength(21);
  expect(mock.counters('run').chat).toBe(20);
});

test('--dry-run prints the item count, estimated tokens and worst-case cost, and sends nothing', async () => {
  // An Anthropic Messages line runs on the chat scope too, its max_tokens its worst case.
  const messagesLine = JSON.stringify({ custom_id: 'm1', url: '/v1/messages', body: { model: 'gpt-4o-mini', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] } });
  const { cwd, env } = setup('dry', [chatLine(1), chatLine(2), messagesLine]);
  const run = await runCli(['batch', 'run', 'in.jsonl', '--out', 'out.jsonl', '--dry-run'], { cwd, env });
  expect(run.code, run.stderr).toBe(EXIT.ok);
  expect(run.stdout).toMatch(/^items 3$/m);
  expect(run.stdout).toMatch(/^estimated prompt tokens \d+$/m);
  expect(run.stdout).toMatch(/^output tokens at most 104$/m);
  expect(run.stdout).toMatch(/^worst-case cost \$0\.0000\d+$/m);
  expect(mock.counters('dry').total).toBe(0);
});

test('a bad line is refused with its line number before anything runs (exit 2)', async () => {
  const { cwd, env } = setup('bad', [chatLine(1), chatLine(2), chatLine(1)]);
  const run = await runCli(['batch', 'run', 'in.jsonl', '--out', 'out.jsonl'], { cwd, env });
  expect(run.code).toBe(EXIT.usage);
  expect(run.stderr).toContain('line 3: custom_id');
  expect(mock.counters('bad').total).toBe(0);
});

test('out of its budget the job pauses (exit 5) without failing items; resume --budget-usd finishes it; cancel is final', { timeout: SPAWNS_TIMEOUT_MS }, async () => {
  const { cwd, env, read } = setup('budget', Array.from({ length: 10 }, (_, index) => chatLine(index)));
  const job = ['--job', 'budgeted'];
  const paused = await runCli(['batch', 'run', 'in.jsonl', '--out', 'out.jsonl', ...job, '--concurrency', '1', '--budget-usd', '0.00003'], { cwd, env });
  expect(paused.code, paused.stderr).toBe(EXIT.paused);
  expect(paused.stderr).toContain('pgw batch resume budgeted --budget-usd');
  const status = JSON.parse((await runCli(['batch', 'status', 'budgeted', '--json'], { cwd, env })).stdout) as Record<string, number | string>;
  expect(status).toMatchObject({ status: 'paused', pauseReason: 'budget', failed: 0 });
  expect(status['done']).toBeGreaterThan(0);
  expect(status['done']).toBeLessThan(10);
  expect(status['costUsd']).toBeLessThanOrEqual(0.00003);

  const resumed = await runCli(['batch', 'resume', 'budgeted', '--budget-usd', '1'], { cwd, env });
  expect(resumed.code, resumed.stderr).toBe(EXIT.ok);
  expect(read('out.jsonl').map((line) => line['custom_id'])).toEqual(Array.from({ length: 10 }, (_, index) => `q${index}`));
  expect(mock.counters('budget').chat).toBe(10);

  const cancelled = await runCli(['batch', 'cancel', 'budgeted'], { cwd, env });
  expect(cancelled.code).toBe(EXIT.ok);
  expect(JSON.parse((await runCli(['batch', 'status', 'budgeted', '--json'], { cwd, env })).stdout)).toMatchObject({ status: 'cancelled' });
  // The report's per-job table reads the same store (and never creates one where there is none).
  expect(await readBatchJobs(join(cwd, 'jobs'))).toMatchObject([{ job: 'budgeted', tenantId: '', status: 'cancelled', total: 10, done: 10, failed: 0 }]);
  expect(await readBatchJobs(join(cwd, 'absent'))).toEqual([]);
  expect(existsSync(join(cwd, 'absent'))).toBe(false);
  const unknown = await runCli(['batch', 'status', 'nowhere'], { cwd, env });
  expect(unknown.code).toBe(EXIT.callFailed);
  expect(unknown.stderr).toContain('no batch job nowhere');
});

test('on the bullmq engine, run completes a job through Redis and PostgreSQL, and a worker of a finished job has nothing to do', { timeout: SPAWNS_TIMEOUT_MS }, async () => {
  const schema = `cli_batch_${Math.random().toString(16).slice(2, 10)}`;
  const dsn = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: dsn });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  let job: string | undefined;
  try {
    const { cwd, env, read } = setup('fleet', Array.from({ length: 12 }, (_, index) => chatLine(index)));
    const fleetEnv = {
      ...env,
      PGW_BATCH__ENGINE: 'bullmq',
      REDIS_URL: redisUrl,
      PGW_BATCH__DSN: `${dsn}?options=-c%20search_path%3D${schema}`,
    };
    const run = await runCli(['batch', 'run', 'in.jsonl', '--out', 'out.jsonl', '--concurrency', '3'], { cwd, env: fleetEnv });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    job = String((JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { job: string }).job);
    expect(read('out.jsonl').map((line) => line['custom_id'])).toEqual(Array.from({ length: 12 }, (_, index) => `q${index}`));
    expect(mock.counters('fleet').chat).toBe(12);
    const worker = await runCli(['batch', 'worker', job], { cwd, env: fleetEnv });
    expect(worker.code, worker.stderr).toBe(EXIT.ok);
    expect(worker.stderr).toContain(`job ${job} completed: 12 done, 0 failed of 12`);
    expect(mock.counters('fleet').chat).toBe(12);
    const { rows } = await admin.query(`SELECT COUNT(*)::int AS n FROM "${schema}".pgw_batch_results WHERE job = $1`, [job]);
    expect(rows[0]).toEqual({ n: 12 });
    const unconfigured = await runCli(['batch', 'status', job], { cwd, env: { ...fleetEnv, PGW_BATCH__DSN: '' } });
    expect(unconfigured.code).toBe(EXIT.config);
    expect(unconfigured.stderr).toContain('PGW_BATCH__DSN');
  } finally {
    // The job's queue keys leave the shared Redis with it (never a FLUSHDB).
    if (job !== undefined) {
      const queue = new Queue(job, { connection: { url: redisUrl }, prefix: BULLMQ_PREFIX });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
});
