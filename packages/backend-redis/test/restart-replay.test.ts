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
import { startPrivateRedis, TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import type { Lease } from '@pgw/core';
import { RedisGovernor } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
afterAll(() => pool.closeAll());

type Admitted = Lease;

it('replays the releases that failed during the outage: quota is back right after a restart, not after the lease TTL', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgw-aof-'));
  let server = await startPrivateRedis(undefined, dir);
  const port = Number(new URL(server.url).port);
  try {
    const redis = pool.open(server.url);
    const governor = new RedisGovernor({
      redis,
      scope: uniqueScope('replay'),
      sources: { a: { ...UNLIMITED, maxConcurrency: 5 } },
      global: UNLIMITED,
      leaseTtlMs: 150_000,
      policy: TEST_BREAKER_POLICY,
    });
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
