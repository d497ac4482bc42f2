/**
 * Exactly once across SIGKILL: a 2,000-item job in a child process on the sqlite engine, killed three
 * times at random points once its progress lines show progress, then resumed to the end. The output
 * holds every custom_id once; the upstream saw at most 2,000 calls plus those in flight at each kill.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { chatLines, mockSource, useMock, useTempDirs } from './helpers.js';

const fixture = useMock();
const tempDir = useTempDirs();
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./fixtures/run-job.ts', import.meta.url));
const ITEMS = 2000;
const CONCURRENCY = 8;
const KILLS = 3;

interface Progress {
  done?: number;
  finished?: { status: string; done: number };
}

/** Runs the job in a child; `killAtDone` set: SIGKILL once a progress line shows that many done, answering the last count seen. */
function runChild(env: Record<string, string>, killAtDone?: number): Promise<Progress> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@pgw/source', SCRIPT], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let last: Progress = {};
  createInterface({ input: child.stdout }).on('line', (line) => {
    last = JSON.parse(line) as Progress;
    if (killAtDone !== undefined && (last.done ?? 0) >= killAtDone) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (killAtDone !== undefined && signal === 'SIGKILL') resolve(last);
      else if (code === 0) resolve(last);
      else reject(new Error(`job process ended with ${code ?? signal}: ${stderr}`));
    });
  });
}

it('a job killed three times at random points and resumed holds each custom_id exactly once', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const source = mockSource(fixture.mock, 'killed', { latencyMs: 2 });
  const input = join(dir, 'input.jsonl');
  const out = join(dir, 'out.jsonl');
  writeFileSync(input, chatLines(ITEMS));
  const env = { MOCK_BASE_URL: fixture.mock.baseUrl(source), JOB_DIR: dir, INPUT: input, OUT: out, CONCURRENCY: String(CONCURRENCY) };

  const killedAt: number[] = [];
  for (let kill = 0; kill < KILLS; kill += 1) {
    // A random point inside this run's share of the job, after it made progress.
    const target = Math.floor(((kill + Math.random()) * ITEMS) / (KILLS + 1));
    const last = await runChild(env, Math.max(target, (killedAt.at(-1) ?? 0) + 1));
    expect(last.finished).toBeUndefined();
    killedAt.push(last.done ?? 0);
  }
  const end = await runChild(env);
  expect(end.finished).toMatchObject({ status: 'completed', done: ITEMS });

  const ids = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
  expect(ids).toHaveLength(ITEMS);
  expect(new Set(ids).size).toBe(ITEMS);
  expect(new Set(ids)).toEqual(new Set(Array.from({ length: ITEMS }, (_, index) => `item-${index}`)));
  // Every kill may lose at most the calls in flight (one per concurrency slot): they run again.
  const sent = fixture.mock.counters(source).chat;
  expect(sent).toBeGreaterThanOrEqual(ITEMS);
  expect(sent).toBeLessThanOrEqual(ITEMS + KILLS * CONCURRENCY);
  expect(killedAt.every((done, index) => index === 0 || done >= killedAt[index - 1]!)).toBe(true);
});
