import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { RedisLimiter } from '../src/index.js';
import { HAMMER_GLOBAL, HAMMER_LEASE_TTL_MS, HAMMER_SOURCES, type HammerReport } from './fixtures/hammer-config.js';
import { connectionPool, REDIS_URL, uniqueScope } from './redis.js';

const WORKERS = 4;
const OPS_PER_WORKER = 500;
const WORKER = fileURLToPath(new URL('./fixtures/hammer-worker.ts', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

const pool = connectionPool();
afterAll(() => pool.closeAll());

function runWorker(scope: string, seed: number): Promise<HammerReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@pgw/source', WORKER], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, REDIS_URL, PGW_SCOPE: scope, PGW_OPS: String(OPS_PER_WORKER), PGW_SEED: String(seed) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as HammerReport);
      else reject(new Error(`worker ${seed} exited with ${code}: ${stderr}`));
    });
  });
}

it(`${WORKERS} processes share one scope with exact accounting`, { timeout: 60_000 }, async () => {
  const scope = uniqueScope('multi');
  const seed = Date.now() % 100_000;
  const reports = await Promise.all(Array.from({ length: WORKERS }, (_, i) => runWorker(scope, seed + i)));
  const total = (pick: (r: HammerReport) => number) => reports.reduce((sum, r) => sum + pick(r), 0);
  expect(total((r) => r.admitted.a + r.admitted.b + r.denied), `seed ${seed}`).toBe(WORKERS * OPS_PER_WORKER);
  expect(total((r) => r.denied), 'the concurrency gates were contended').toBeGreaterThan(0);

  const limiter = new RedisLimiter({
    redis: pool.open(),
    scope,
    sources: HAMMER_SOURCES,
    global: HAMMER_GLOBAL,
    leaseTtlMs: HAMMER_LEASE_TTL_MS,
  });
  // Abandoned permits come back when their lease expires; nothing else may stay in flight.
  const deadline = Date.now() + 10 * HAMMER_LEASE_TTL_MS;
  while ((await limiter.sourceStats('a')).inflight + (await limiter.sourceStats('b')).inflight > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const source of ['a', 'b'] as const) {
    expect(await limiter.sourceStats(source), `source ${source}, seed ${seed}`).toEqual({
      inflight: 0,
      rpmUsed: total((r) => r.admitted[source]),
      tpmUsed: total((r) => r.charged[source]),
    });
  }
  expect(total((r) => r.admitted.b)).toBeLessThanOrEqual(HAMMER_SOURCES.b.rpm);
});
