/**
 * The bullmq engine across a fleet: three worker processes on one Redis and one PostgreSQL drive one
 * job, one of them killed (SIGKILL) mid-job with items in flight. The job completes with each result
 * once (the results' key), the killed worker's items run again after BullMQ's stalled check, and the
 * scope's RPM, governed on the same Redis, is never exceeded at the mock. Runs for more than a minute
 * (the RPM window), so only on the first Node of .ci/node-versions (vitest.config.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { parseBatchInput } from '../../src/index.js';
import { BullmqBatchEngine } from '@pgw/batch-bullmq';
import { removeTestJob } from './bullmq-cleanup.js';
import { chatLines, mockSource, useMock } from '../helpers.js';

const fixture = useMock();
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const PG_DSN = process.env['PGW_TEST_PG_DSN'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const WORKER = fileURLToPath(new URL('./fixtures/fleet-worker.ts', import.meta.url));
const ITEMS = 60;
const RPM = 40;
const CONCURRENCY = 4;
const hex = () => randomBytes(5).toString('hex');
const schema = `batch_fleet_${hex()}`;
const job = `fleet_${hex()}`;

afterAll(() => removeTestJob({ job, connection: { url: REDIS_URL }, dsn: PG_DSN, schema }));

interface Line {
  done?: number;
  inFlight?: number;
  finished?: { status: string; done: number };
}

function startWorker(env: Record<string, string>, onLine: (line: Line) => void): { child: ChildProcess; exit: Promise<number | string | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@pgw/source', WORKER], { cwd: PACKAGE_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => onLine(JSON.parse(line) as Line));
  const exit = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => {
    if (code !== 0 && signal === null) console.error(stderr);
    resolve(code ?? signal);
  }));
  return { child, exit };
}

it('three workers, one killed mid-job, finish the job with each result once and the RPM kept', { timeout: 240_000 }, async () => {
  const source = mockSource(fixture.mock, 'fleet', { latencyMs: 200 });
  const opener = new BullmqBatchEngine({ redisUrl: REDIS_URL, dsn: PG_DSN, schema });
  await opener.open({ id: job, tenantId: 'fleet' }, parseBatchInput(chatLines(ITEMS)));
  await opener.close();
  const env = { REDIS_URL, PG_DSN, PG_SCHEMA: schema, JOB: job, SCOPE: `FLEET_${hex().toUpperCase()}`, RPM: String(RPM), CONCURRENCY: String(CONCURRENCY), MOCK_BASE_URL: fixture.mock.baseUrl(source) };

  let killed = false;
  const workers = [0, 1, 2].map((index) =>
    startWorker(env, (line) => {
      // Worker 0 dies once the job has made progress, with calls of its own in flight.
      if (index === 0 && !killed && (line.done ?? 0) >= 10 && fixture.mock.counters(source).inflight > 0) {
        killed = true;
        workers[0]!.child.kill('SIGKILL');
      }
    }),
  );
  const exits = await Promise.all(workers.map((worker) => worker.exit));
  expect(exits).toEqual(['SIGKILL', 0, 0]);

  const reader = new BullmqBatchEngine({ redisUrl: REDIS_URL, dsn: PG_DSN, schema });
  try {
    expect(await reader.progress(job)).toMatchObject({ status: 'completed', total: ITEMS, done: ITEMS, failed: 0 });
    const ids = (await reader.results(job)).map((result) => result.customId);
    expect(ids).toHaveLength(ITEMS);
    expect(new Set(ids).size).toBe(ITEMS);
  } finally {
    await reader.close();
  }
  const arrivals = fixture.mock.requests(source).map((request) => request.arrivedAt).sort((a, b) => a - b);
  // The killed worker's calls in flight may have reached the mock and run again: at most its concurrency.
  expect(arrivals.length).toBeGreaterThanOrEqual(ITEMS);
  expect(arrivals.length).toBeLessThanOrEqual(ITEMS + CONCURRENCY);
  // The job needs two RPM windows; within any window (less the few ms from admission to arrival) at most RPM calls.
  const busiest = Math.max(...arrivals.map((start) => arrivals.filter((at) => at >= start && at < start + 59_500).length));
  expect(busiest).toBeLessThanOrEqual(RPM);
  expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(59_500);
});
