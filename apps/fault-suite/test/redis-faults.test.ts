/**
 * Redis faults, on a redis-server of this file's own: killed and restarted under load, frozen with
 * SIGSTOP, and a worker SIGKILLed while it holds leases.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createRedisConnection, RedisLimiter } from '@pgw/backend-redis';
import { GatewayClient, GovernanceBackendError } from '@pgw/client';
import type { MockUpstream } from '@pgw/mock-upstream';
import { startPrivateRedis, type PrivateRedis } from '@pgw/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Load, chatScope, ms, printFigures, recordFigure, startMock, uniqueName, until } from '../src/index.js';

const HI = [{ role: 'user' as const, content: 'hi' }];
/** The client's default Redis command timeout (`createRedisConnection`). */
const COMMAND_TIMEOUT_MS = 2_000;

let mock: MockUpstream;
const servers: PrivateRedis[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  mock = await startMock();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const server of servers.splice(0)) {
    server.child.kill('SIGCONT');
    await server.stop();
  }
});
afterAll(async () => {
  await mock.close();
  printFigures();
});

async function privateRedis(port?: number): Promise<PrivateRedis> {
  const server = await startPrivateRedis(port);
  servers.push(server);
  return server;
}

/** A client governed on `redis`, calling a 20 ms source with up to 8 requests at once; one attempt per call. */
async function governedClient(redisUrl: string) {
  const scope = uniqueName('fault');
  const { source, env } = chatScope(mock, scope, { latencyMs: 20 }, { MAX_CONCURRENCY: '8' }, { MAX_ATTEMPTS: '1' });
  const client = await GatewayClient.fromEnv(scope, {
    env: { ...env, PGW_LIMITER_BACKEND: 'redis', PGW_CACHE_BACKEND: 'none', REDIS_URL: redisUrl },
    warn: () => {},
  });
  cleanups.push(() => client.close());
  return { client, scope, source };
}

/** Reads a source's books on `redisUrl` the way every worker does. */
function observer(redisUrl: string, scope: string, source: string) {
  const redis = createRedisConnection(redisUrl);
  cleanups.push(() => redis.quit().catch(() => redis.disconnect()));
  const limiter = new RedisLimiter({
    redis,
    scope,
    sources: { [source]: { rpm: 0, tpm: 0, maxConcurrency: 8 } },
    global: { rpm: 0, tpm: 0, maxConcurrency: 0 },
    leaseTtlMs: 60_000,
  });
  return { inflight: async () => (await limiter.sourceStats(source)).inflight };
}

describe('Redis faults', () => {
  it('killed mid-load: fails closed at once, recovers on restart without a new client, in-flight back to 0', async () => {
    const name = 'killed mid-load';
    const first = await privateRedis();
    const port = Number(new URL(first.url).port);
    const { client, scope, source } = await governedClient(first.url);
    const load = new Load(() => client.chat(HI, { cacheBypass: true }), { workers: 4, maxCalls: 20_000 });
    cleanups.push(() => load.stop());

    await until('20 successful calls', () => load.successes() >= 20);
    await first.stop();
    const killedAt = performance.now();
    await until('a call failing closed', () => load.since(killedAt).some((o) => o.error instanceof GovernanceBackendError));
    const failedClosedMs = Math.min(...load.since(killedAt).filter((o) => o.error).map((o) => o.endedAt)) - killedAt;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const outage = load.since(killedAt);
    // Nothing started while Redis was down went through ungoverned.
    expect(outage.length).toBeGreaterThan(0);
    expect(outage.every((o) => o.error instanceof GovernanceBackendError)).toBe(true);

    await privateRedis(port);
    const restartedAt = performance.now();
    await until('a successful call after the restart', () => load.successes(restartedAt) > 0);
    const recoveredMs = Math.min(...load.since(restartedAt).filter((o) => !o.error).map((o) => o.endedAt)) - restartedAt;
    await until('20 more successful calls', () => load.successes(restartedAt) >= 20);
    await load.stop();
    const books = observer(`redis://127.0.0.1:${port}`, scope, source);
    await until('in-flight back to 0', async () => (await books.inflight()) === 0, 10_000);

    expect(failedClosedMs).toBeLessThan(COMMAND_TIMEOUT_MS + 3_000);
    expect(recoveredMs).toBeLessThan(10_000);
    recordFigure(name, `first GovernanceBackendError ${ms(failedClosedMs)} after the kill; ${outage.length} calls during the 300 ms outage, all GovernanceBackendError; first success ${ms(recoveredMs)} after the restart; in-flight 0`);
  });

  it('frozen with SIGSTOP: calls fail within the command timeout, then recover after SIGCONT', async () => {
    const name = 'frozen (SIGSTOP)';
    const server = await privateRedis();
    const { client, scope, source } = await governedClient(server.url);
    await client.chat(HI, { cacheBypass: true });

    server.child.kill('SIGSTOP');
    const frozenAt = performance.now();
    const error = await client.chat(HI, { cacheBypass: true }).catch((e: unknown) => e);
    const failedMs = performance.now() - frozenAt;
    expect(error).toBeInstanceOf(GovernanceBackendError);
    expect(failedMs).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS * 0.9);
    expect(failedMs).toBeLessThan(COMMAND_TIMEOUT_MS * 4);

    server.child.kill('SIGCONT');
    const thawedAt = performance.now();
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i += 1) {
      recovered = await client.chat(HI, { cacheBypass: true }).then(
        () => true,
        () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 50)),
      );
    }
    const recoveredMs = performance.now() - thawedAt;
    expect(recovered).toBe(true);
    const books = observer(server.url, scope, source);
    await until('in-flight back to 0', async () => (await books.inflight()) === 0, 10_000);
    recordFigure(name, `GovernanceBackendError ${ms(failedMs)} after the freeze (command timeout ${COMMAND_TIMEOUT_MS} ms); first success ${ms(recoveredMs)} after SIGCONT; in-flight 0`);
  });

  it('a worker SIGKILLed while holding leases: its slots come back after LEASE_TTL', async () => {
    const name = 'worker SIGKILLed holding leases';
    const server = await privateRedis();
    const scope = uniqueName('lease');
    const leaseTtlMs = 2_000;
    const slots = 3;
    const worker = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@pgw/source', fileURLToPath(new URL('./fixtures/lease-holder.ts', import.meta.url))],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { ...process.env, REDIS_URL: server.url, PGW_SCOPE: scope, PGW_SLOTS: String(slots), PGW_LEASE_TTL_MS: String(leaseTtlMs) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = once(worker, 'exit');
    cleanups.push(async () => {
      worker.kill('SIGKILL');
      await exited;
    });
    await new Promise<void>((resolve, reject) => {
      worker.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
      worker.once('exit', (code) => reject(new Error(`lease holder exited with ${code}`)));
    });

    const redis = createRedisConnection(server.url);
    cleanups.push(() => redis.quit());
    const limiter = new RedisLimiter({
      redis,
      scope,
      sources: { a: { rpm: 0, tpm: 0, maxConcurrency: slots } },
      global: { rpm: 0, tpm: 0, maxConcurrency: 0 },
      leaseTtlMs,
    });
    expect(await limiter.tryEnter('a', 1)).toMatchObject({ ok: false });
    worker.kill('SIGKILL');
    await exited;
    const killedAt = performance.now();
    let admission = await limiter.tryEnter('a', 1);
    for (let i = 0; i < 500 && !admission.ok; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      admission = await limiter.tryEnter('a', 1);
    }
    const reclaimedMs = performance.now() - killedAt;
    expect(admission.ok).toBe(true);
    if (admission.ok) await admission.permit.release();
    expect(reclaimedMs).toBeLessThan(leaseTtlMs + 5_000);
    // The worker took its leases one after another, so they lapse one after another: every slot is
    // back within LEASE_TTL of the last one, and all of them can be taken at once.
    await until('every slot of the killed worker back', async () => (await limiter.sourceStats('a')).inflight === 0, leaseTtlMs + 5_000);
    const allSlotsMs = performance.now() - killedAt;
    const retaken = await Promise.all(Array.from({ length: slots }, () => limiter.tryEnter('a', 1)));
    expect(retaken.map((entered) => entered.ok)).toEqual(Array.from({ length: slots }, () => true));
    for (const entered of retaken) if (entered.ok) await entered.permit.release();
    expect((await limiter.sourceStats('a')).inflight).toBe(0);
    recordFigure(
      name,
      `${slots} slots held by the killed worker; admitted again ${ms(reclaimedMs)} after the kill, every slot back ${ms(allSlotsMs)} after it (LEASE_TTL ${leaseTtlMs} ms, leases taken before the kill)`,
    );
  });
});
