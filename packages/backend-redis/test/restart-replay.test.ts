/**
 * Nothing lost across a Redis outage: write-backs that failed while a persistent (AOF) Redis was
 * down are replayed once it is back, so its quota returns within the reconnect time, not the lease
 * TTL. A private redis-server on its own port and temp dir, killed with SIGKILL and restarted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { FakeClock, startPrivateRedis, TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import type { Lease } from '@pgw/core';
import { RedisGovernor } from '../src/index.js';
import { limiterKeys, scopePrefix } from '../src/keys.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
afterAll(() => pool.closeAll());

type Admitted = Lease;

/** A governor of one source `a` with `maxConcurrency` slots, on `redis`, under a fresh scope. */
function governorOn(redis: ReturnType<typeof pool.open>, label: string, maxConcurrency: number, now?: FakeClock['now']): RedisGovernor {
  return new RedisGovernor({
    redis,
    scope: uniqueScope(label),
    sources: { a: { ...UNLIMITED, maxConcurrency } },
    global: UNLIMITED,
    leaseTtlMs: 150_000,
    policy: TEST_BREAKER_POLICY,
    ...(now && { now }),
  });
}

it('replays the releases that failed during the outage: quota is back right after a restart, not after the lease TTL', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgw-aof-'));
  let server = await startPrivateRedis(undefined, dir);
  const port = Number(new URL(server.url).port);
  try {
    const redis = pool.open(server.url);
    const governor = governorOn(redis, 'replay', 5);
    const held: Admitted[] = [];
    for (let i = 0; i < 5; i++) {
      const admission = await governor.admit('a', 100);
      if (!admission.ok) throw new Error('expected admission');
      held.push(admission);
    }
    expect(await governor.admit('a', 100)).toMatchObject({ ok: false, gate: 'source_concurrency' });

    await server.stop(); // SIGKILL: the five leases are in the append-only file
    if (redis.status === 'ready') await once(redis, 'close');
    for (const admission of held) await expect(admission.finish('success', 80)).rejects.toThrow(/finish/);
    // Only the first finish counts, as for every governor's lease: the replay, not the caller, writes it back.
    await expect(held[0]!.finish('success', 80)).resolves.toBeUndefined();

    server = await startPrivateRedis(port, dir);
    const restarted = performance.now();
    let admittedAfterMs: number | undefined;
    while (admittedAfterMs === undefined && performance.now() - restarted < 15_000) {
      const answer = await governor.admit('a', 100).catch(() => undefined);
      if (answer?.ok) {
        admittedAfterMs = performance.now() - restarted;
        await answer.finish('success', 100);
      } else {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    // Target: within 2 s of reconnecting (reconnection itself takes up to 1 s); the lease TTL is 150 s.
    expect(admittedAfterMs).toBeDefined();
    expect(admittedAfterMs!).toBeLessThan(10_000);
    await expect.poll(() => governor.limiter.sourceStats('a'), { timeout: 10_000 }).toEqual({ inflight: 0, rpmUsed: 6, tpmUsed: 5 * 80 + 100 });
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

it('replays a departure from the fleet line that failed during the outage: the line moves on without waiting for the turn to lapse', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgw-aof-'));
  let server = await startPrivateRedis(undefined, dir);
  const port = Number(new URL(server.url).port);
  const clock = new FakeClock(); // stands still: no turn lapses by time
  try {
    const redis = pool.open(server.url);
    const governor = governorOn(redis, 'replay-line', 1, clock.now);
    const holder = await governor.admit('a', 1);
    if (!holder.ok) throw new Error('expected admission');
    expect(await governor.admit('a', 1, 'gone')).toMatchObject({ ok: false, gate: 'source_concurrency' });
    expect(await governor.admit('a', 1, 'next')).toMatchObject({ ok: false, queued: true });

    await server.stop();
    if (redis.status === 'ready') await once(redis, 'close');
    await expect(governor.leaveLine('gone')).rejects.toThrow(/leaveLine/);
    await expect(holder.finish('success', 1)).rejects.toThrow(/finish/);

    server = await startPrivateRedis(port, dir);
    await expect
      .poll(async () => (await governor.admit('a', 1, 'next').catch(() => undefined))?.ok, { timeout: 10_000, interval: 50 })
      .toBe(true);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

it('re-sends the write-backs that landed just before the connection dropped: a promoted replica that missed them gets them', async () => {
  const redis = pool.open();
  const store = pool.open();
  const scope = uniqueScope('replay-recent');
  const governor = new RedisGovernor({ redis, scope, sources: { a: { ...UNLIMITED, tpm: 1_000, maxConcurrency: 1 } }, global: UNLIMITED, leaseTtlMs: 150_000, policy: TEST_BREAKER_POLICY });
  const { sourceLeases, globalLeases } = limiterKeys(scopePrefix(scope), 'a');
  const admission = await governor.admit('a', 100);
  if (!admission.ok) throw new Error('expected admission');
  // The books as an asynchronous replica last saw them: the lease is there, its release not yet.
  const before = await Promise.all([sourceLeases, globalLeases].map(async (key) => [key, await store.dumpBuffer(key)] as const));
  await admission.finish('success', 80);
  expect(await governor.limiter.sourceStats('a')).toMatchObject({ inflight: 0, tpmUsed: 80 });

  // The primary dies before replicating the release and its replica takes over: the lease is back.
  for (const [key, dumped] of before) if (dumped !== null) await store.restore(key, 0, dumped, 'REPLACE');
  expect(await governor.limiter.sourceStats('a')).toMatchObject({ inflight: 1 });
  const reconnected = once(redis, 'ready');
  redis.disconnect(true);
  await reconnected;

  await expect.poll(() => governor.limiter.sourceStats('a'), { timeout: 5_000 }).toMatchObject({ inflight: 0, tpmUsed: 80 });
  expect((await governor.admit('a', 1)).ok).toBe(true);
  await governor.close();
});
