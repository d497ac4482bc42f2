/**
 * `pnpm --filter @pgw/bench cost [--calls N] [--stages]`: what one governed call costs Redis. Starts its own
 * redis-server (a private port, no persistence, so no other traffic is counted) and the mock upstream,
 * then for concurrency 1 and 64 runs raw undici and the Redis-governed client interleaved and reports,
 * per governed call: round trips (script and command calls), Redis server CPU (`INFO commandstats`
 * usec deltas), and the throughput ratio governed / raw. Then the shard's own ceiling: 64 loops of
 * admit + finish straight on a RedisGovernor (no upstream), admissions/s and Redis CPU per admission.
 * `--stages`: then where a lone call's Redis CPU goes, script stage by stage (redis-script-stages.ts).
 */
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createRedisConnection } from '@pgw/backend-redis';
import { gatewayCaller, rawUndiciCaller, CONNECTIONS, type Caller } from './callers.js';
import { benchSettings, uniqueScope } from './gateway-settings.js';
import { interleave, ratio, runConcurrent } from './harness.js';
import { MockProcess } from './mock-process.js';
import { SOURCES } from './mock-script.js';
import { startPrivateRedisServer } from './redis-scope.js';
import { benchGovernor, scriptStages } from './redis-script-stages.js';

interface CommandStats {
  /** Scripts run (EVALSHA / EVAL): each is one round trip of the governed client, which sends nothing else. */
  scripts: number;
  /** Server CPU of those scripts, the commands they ran included. */
  usec: number;
  /** Commands the scripts ran. */
  inner: number;
}

/** `INFO commandstats` summed: scripts, their CPU in µs, and the commands run from inside them. */
async function commandStats(redis: Redis): Promise<CommandStats> {
  const info = await redis.info('commandstats');
  const totals = { scripts: 0, usec: 0, inner: 0 };
  for (const match of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/gm)) {
    const [, name, calls, usec] = match;
    if (name === 'evalsha' || name === 'eval') {
      totals.scripts += Number(calls);
      totals.usec += Number(usec);
    } else if (name !== 'info' && name !== 'script' && name !== 'ping') {
      totals.inner += Number(calls);
    }
  }
  return totals;
}

/** Admissions per second one shard gives a single scope: the governor alone, 64 loops. */
async function shardCeiling(url: string, stats: Redis, admissions: number): Promise<void> {
  const redis = createRedisConnection(url);
  const governor = benchGovernor(redis, 'BENCH_SHARD');
  try {
    const before = await commandStats(stats);
    const started = performance.now();
    await runConcurrent(admissions, 64, async () => {
      const admission = await governor.admit('a', 100);
      if (!admission.ok) throw new Error('shard bench: unexpected refusal');
      await admission.finish('success', 80);
    });
    const seconds = (performance.now() - started) / 1000;
    const after = await commandStats(stats);
    const usec = (after.usec - before.usec) / admissions;
    console.log(
      `shard: ${(admissions / seconds).toFixed(0)} admissions/s from one client process (RPM and concurrency limits set); ` +
        `${usec.toFixed(1)} µs Redis CPU per admission → ceiling ≈ ${(1e6 / usec).toFixed(0)}/s with Redis's core fully busy ` +
        `(Redis busy ${((after.usec - before.usec) / 1e4 / seconds).toFixed(0)}% of the run)`,
    );
  } finally {
    await governor.close();
    await redis.quit();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '4000' }, stages: { type: 'boolean', default: false } } });
  const calls = Number(values.calls);
  const redisServer = await startPrivateRedisServer();
  const mock = await MockProcess.start();
  const stats = new Redis(redisServer.url);
  const callers: Caller[] = [];
  try {
    const baseUrl = mock.baseUrl(SOURCES.chat);
    const raw = rawUndiciCaller('raw undici', baseUrl, CONNECTIONS);
    const governed = await gatewayCaller(
      'gateway (redis)',
      benchSettings({ scope: uniqueScope('BENCH_COST'), baseUrl, backend: 'redis', redisUrl: redisServer.url }),
    );
    callers.push(raw, governed);
    console.log(`calls per round: ${calls}; interleaved rounds: 3 (median)`);
    for (const concurrency of [1, 64]) {
      const perRound = concurrency === 1 ? Math.ceil(calls / 8) : calls;
      let governedCalls = 0;
      const before = await commandStats(stats);
      const results = await interleave(
        callers.map((caller) => ({
          name: caller.name,
          round: async () => {
            const done = await runConcurrent(perRound, concurrency, () => caller.call());
            if (caller === governed) governedCalls += done;
            return done;
          },
        })),
        { rounds: 3, between: () => mock.reset() },
      );
      const after = await commandStats(stats);
      const [rawResult, governedResult] = results;
      console.log(
        `c=${concurrency}: raw ${rawResult!.median.toFixed(0)}/s, governed ${governedResult!.median.toFixed(0)}/s, ` +
          `ratio ${ratio(governedResult!.median, rawResult!.median).toFixed(2)}; per governed call: ` +
          `${((after.scripts - before.scripts) / governedCalls).toFixed(2)} round trips, ` +
          `${((after.inner - before.inner) / governedCalls).toFixed(1)} commands inside them, ` +
          `${((after.usec - before.usec) / governedCalls).toFixed(1)} µs Redis server CPU`,
      );
    }
    await shardCeiling(redisServer.url, stats, calls * 4);
    if (values.stages) await scriptStages(redisServer.url, stats, Math.ceil(calls / 2));
  } finally {
    for (const caller of callers) await caller.close();
    stats.disconnect();
    await mock.close();
    await redisServer.stop();
  }
}

await main();
