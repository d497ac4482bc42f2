/**
 * Redis failover and restarts under load, on processes of this file's own (ports 7300–7399): a
 * Cluster master SIGKILLed with its replica promoted, a Sentinel-managed primary SIGKILLed with its
 * replica promoted, and a standalone Redis without persistence restarted empty while calls are held
 * across it. Each runs twice; the figures go into docs/reliability.md.
 */
import {
  createRedisCluster,
  createRedisConnection,
  createRedisSentinel,
  RedisLimiter,
  type RedisClient,
} from '@pgw/backend-redis';
import { GatewayClient, GovernanceBackendError } from '@pgw/client';
import type { MockUpstream } from '@pgw/mock-upstream';
import { startPrivateRedis } from '@pgw/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Load, chatScope, ms, printFigures, recordFigure, startMock, startCluster, startSentinelGroup, uniqueName, until } from '../src/index.js';

const HI = [{ role: 'user' as const, content: 'hi' }];
const CLUSTER_PORTS = [7300, 7301, 7302, 7303, 7304, 7305];
const SENTINEL_PORTS = [7310, 7311, 7320, 7321, 7322];
const RESTART_PORT = 7330;
const MAX_CONCURRENCY = 4;
/** "Calls succeed again within one second of the promotion", with room for a loaded machine. */
const RECOVERY_BOUND_MS = 2_000;

let mock: MockUpstream;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  mock = await startMock();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});
afterAll(async () => {
  await mock.close();
  printFigures();
});

/** A client governed on the Redis `redisEnv` names, calling one mock source; one attempt per call. */
async function governedClient(redisEnv: Record<string, string>, latencyMs: number, limits: Record<string, string>, scopeKeys: Record<string, string> = {}) {
  const scope = uniqueName('ha');
  const { source, env } = chatScope(mock, scope, { latencyMs }, { MAX_CONCURRENCY: String(MAX_CONCURRENCY), ...limits }, { MAX_ATTEMPTS: '1', ...scopeKeys });
  const client = await GatewayClient.fromEnv(scope, {
    env: { ...env, PGW_LIMITER_BACKEND: 'redis', PGW_CACHE_BACKEND: 'none', ...redisEnv },
    warn: () => {},
  });
  cleanups.push(() => client.close());
  return { client, scope, source };
}

/** The highest number of requests the source had open at once, sampled every few milliseconds. */
function peakInflight(source: string) {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, mock.counters(source).inflight);
  }, 2);
  cleanups.push(async () => clearInterval(timer));
  return { get peak() { return Math.max(peak, mock.counters(source).inflight); } };
}

/** Reads a source's books the way every worker does, on a connection of its own. */
function books(redis: RedisClient, scope: string, source: string) {
  cleanups.push(() => redis.quit().catch(() => redis.disconnect()));
  const limiter = new RedisLimiter({
    redis,
    scope,
    sources: { [source]: { rpm: 0, tpm: 0, maxConcurrency: MAX_CONCURRENCY } },
    global: { rpm: 0, tpm: 0, maxConcurrency: 0 },
    leaseTtlMs: 60_000,
  });
  return () => limiter.sourceStats(source);
}

/** Stops the load and measures how long until every lease is back. */
async function leasesBackAfter(load: Load, stats: () => Promise<{ inflight: number }>): Promise<number> {
  await load.stop();
  const stoppedAt = performance.now();
  await until('every lease back', async () => (await stats().catch(() => ({ inflight: -1 }))).inflight === 0, 10_000);
  return performance.now() - stoppedAt;
}

/** The first success of a call started after `from`, relative to `to`. */
function firstSuccessMs(load: Load, from: number, to: number): number {
  return Math.min(...load.since(from).filter((o) => o.error === undefined).map((o) => o.endedAt)) - to;
}

/**
 * Kills the primary of a promoted-replica topology under load and checks what a failover promises:
 * the client follows the promotion within RECOVERY_BOUND_MS, in flight and RPM stay within limits,
 * every lease comes back, and turns left in the fleet line by calls that failed stall nobody.
 */
async function failoverUnderLoad(
  name: string,
  run: number,
  client: GatewayClient,
  source: string,
  kill: () => Promise<void>,
  promoted: () => Promise<unknown>,
  stats: () => Promise<{ inflight: number; rpmUsed: number }>,
  rpm: number,
) {
  const peak = peakInflight(source);
  // Twice the workers of the concurrency limit: callers wait in line, in the process and the fleet.
  const load = new Load(() => client.chat(HI, { cacheBypass: true }), { workers: 2 * MAX_CONCURRENCY, maxCalls: 20_000 });
  cleanups.push(() => load.stop());
  await until('40 successful calls', () => load.successes() >= 40);
  await kill();
  const killedAt = performance.now();
  await promoted();
  const promotedAt = performance.now();
  await until('a successful call after the kill', () => load.successes(killedAt) > 0, 20_000);
  const recoveredMs = firstSuccessMs(load, killedAt, promotedAt);
  await until('40 successful calls after the promotion', () => load.successes(promotedAt) >= 40, 20_000);
  const outage = load.since(killedAt).filter((o) => o.startedAt < promotedAt);
  const leasesMs = await leasesBackAfter(load, stats);
  const { rpmUsed } = await stats();
  const sent = mock.counters(source).chat;

  expect(outage.filter((o) => o.error !== undefined).every((o) => o.error instanceof GovernanceBackendError)).toBe(true);
  expect(recoveredMs).toBeLessThan(RECOVERY_BOUND_MS);
  expect(peak.peak).toBeLessThanOrEqual(MAX_CONCURRENCY);
  expect(sent).toBeLessThanOrEqual(rpm);
  expect(rpmUsed).toBeLessThanOrEqual(rpm);
  recordFigure(
    `${name} (run ${run})`,
    `promoted ${ms(promotedAt - killedAt)} after the kill; first success ${ms(recoveredMs)} after the promotion; ` +
      `${outage.length} calls in between, all failed closed; peak in flight ${peak.peak}/${MAX_CONCURRENCY}; ` +
      `${sent} requests sent, ${rpmUsed} in the RPM window (limit ${rpm}); every lease back ${ms(leasesMs)} after the load stopped`,
  );
}

describe('Redis failover and restarts', () => {
  it.each([1, 2])('a Cluster master SIGKILLed under load: its replica takes over within a second, limits exact (run %i)', async (run) => {
    const cluster = await startCluster(CLUSTER_PORTS);
    cleanups.push(() => cluster.stop());
    const rpm = 600;
    const { client, scope, source } = await governedClient({ PGW_REDIS_MODE: 'cluster', REDIS_URL: cluster.seeds }, 100, { RPM: String(rpm) });
    const key = `pgw:{${scope}}:`;
    const { master } = await cluster.ownerOf(key);
    const stats = books(createRedisCluster(cluster.seeds.split(',')), scope, source);
    await failoverUnderLoad(
      'Cluster master SIGKILLed',
      run,
      client,
      source,
      () => cluster.nodes.find((node) => node.port === master)!.kill(),
      () => cluster.promoted(key, master),
      stats,
      rpm,
    );
  });

  it.each([1, 2])('a Sentinel-managed primary SIGKILLed under load: the client follows the promoted replica, limits exact (run %i)', async (run) => {
    const group = await startSentinelGroup(SENTINEL_PORTS);
    cleanups.push(() => group.stop());
    const rpm = 600;
    const redisEnv = { PGW_REDIS_MODE: 'sentinel', REDIS_URL: group.sentinels, PGW_REDIS_SENTINEL_MASTER: group.masterName };
    const { client, scope, source } = await governedClient(redisEnv, 100, { RPM: String(rpm) });
    const stats = books(createRedisSentinel(group.sentinels.split(','), { masterName: group.masterName }), scope, source);
    await failoverUnderLoad('Sentinel primary SIGKILLed', run, client, source, () => group.primary.kill(), () => group.promoted(), stats, rpm);
  });

  it.each([1, 2])('a standalone Redis without persistence restarted empty under load: limits hold, calls held across it complete (run %i)', async (run) => {
    const first = await startPrivateRedis(RESTART_PORT);
    cleanups.push(() => first.stop());
    const rpm = 12;
    // Slow calls (held across the restart) and a small RPM the load exhausts within the run; a full
    // gate fails fast so the load keeps asking. A call outlasts the kill, the 500 ms pause and the
    // restart (about 0.6 s, more on a loaded machine) by 5×, so the whole second wave is held across it.
    const { client, scope, source } = await governedClient({ REDIS_URL: first.url }, 3_000, { RPM: String(rpm) }, { QUOTA_FULL: 'fail_fast' });
    const peak = peakInflight(source);
    const load = new Load(() => client.chat(HI, { cacheBypass: true }), { workers: 2 * MAX_CONCURRENCY, maxCalls: 20_000, pauseMs: 20 });
    cleanups.push(() => load.stop());
    // The first wave is done (in the RPM window), the second is held at the source: every call of both
    // waves has reached it and only the second's are in flight (one of the first still in flight beside
    // three of the second would end before the restart, and not be held across it).
    await until('a second wave of calls at the source', () => mock.counters(source).chat >= 2 * MAX_CONCURRENCY && mock.counters(source).inflight === MAX_CONCURRENCY);
    await first.stop();
    const killedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const second = await startPrivateRedis(RESTART_PORT);
    cleanups.push(() => second.stop());
    const restartedAt = performance.now();
    // Long enough for a store that forgot the books to admit a full RPM window and concurrency again.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const stats = books(createRedisConnection(second.url), scope, source);
    const leasesMs = await leasesBackAfter(load, stats);
    const held = load.outcomes.filter((o) => o.startedAt < killedAt && o.endedAt > restartedAt);
    const sent = mock.counters(source).chat;
    const { rpmUsed } = await stats();

    expect(held.length).toBe(MAX_CONCURRENCY);
    expect(held.every((o) => o.error === undefined)).toBe(true);
    expect(peak.peak).toBeLessThanOrEqual(MAX_CONCURRENCY);
    expect(sent).toBeLessThanOrEqual(rpm);
    expect(rpmUsed).toBeLessThanOrEqual(rpm);
    recordFigure(
      `standalone restarted without persistence (run ${run})`,
      `restarted empty ${ms(restartedAt - killedAt)} after the kill with ${held.length} calls held across it, all completed; ` +
        `peak in flight ${peak.peak}/${MAX_CONCURRENCY}; ${sent} requests sent in the whole run (under a minute), ` +
        `${rpmUsed} in the RPM window (limit ${rpm}); every lease back ${ms(leasesMs)} after the load stopped`,
    );
  });
});
