import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { GovernanceBackendError, type BreakerTicket } from '@pgw/core';
import { TEST_BREAKER_POLICY, UNLIMITED, spareFreePort, startPrivateRedis } from '@pgw/testkit';
import { RedisCache, RedisBreaker, RedisLimiter } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
afterAll(() => pool.closeAll());

const POLICY = { ...TEST_BREAKER_POLICY, failureThreshold: 2 };
/** Generous: the point is "rejects, does not hang", not a latency figure. */
const BOUND_MS = 10_000;

function backends(redis: Redis, commandTimeoutMs = 300) {
  const scope = uniqueScope('fail-closed');
  return {
    scope,
    limiter: new RedisLimiter({ redis, scope, sources: { a: UNLIMITED }, global: UNLIMITED, leaseTtlMs: 30_000, commandTimeoutMs }),
    breaker: new RedisBreaker({ redis, scope, sources: ['a'], policy: POLICY, commandTimeoutMs }),
    cache: new RedisCache({ redis, namespace: scope, commandTimeoutMs }),
  };
}

/** Awaits `call`, which must reject with a GovernanceBackendError for `scope` within BOUND_MS. */
async function expectGovernanceFailure(scope: string, call: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  const outcome = await call().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  expect(outcome).toHaveProperty('error');
  const { error } = outcome as { error: unknown };
  expect(error).toBeInstanceOf(GovernanceBackendError);
  expect(error).toMatchObject({ scope, reason: 'governance_backend', retryAfterMs: 5_000 });
  expect(Date.now() - started).toBeLessThan(BOUND_MS);
}

describe('fail-closed', () => {
  it('against a closed port, every governance call throws GovernanceBackendError and nothing is admitted', async () => {
    const redis = pool.open(`redis://127.0.0.1:${await spareFreePort()}`);
    const { scope, limiter, breaker, cache } = backends(redis);
    const ticket: BreakerTicket = { ok: true, source: 'a', epoch: 0, probe: true, probeToken: 'x' };
    for (const call of [
      () => limiter.tryEnter('a', 10),
      () => limiter.sourceStats('a'),
      () => breaker.tryAcquire('a'),
      () => breaker.record(ticket, 'success'),
      () => breaker.releaseProbe(ticket),
      () => breaker.snapshot('a'),
    ]) {
      await expectGovernanceFailure(scope, call);
    }
    // The cache fails open: a plain error the cache middleware turns into a warning.
    for (const call of [() => cache.get('k'), () => cache.set('k', 'v', 1_000)]) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(GovernanceBackendError);
    }
  });

  it('a Redis killed mid-use fails every call closed; a call cut off is not replayed on the restarted one', async () => {
    const server = await startPrivateRedis();
    try {
      const redis = pool.open(server.url);
      const { scope, limiter, breaker } = backends(redis);
      const admission = await limiter.tryEnter('a', 100);
      if (!admission.ok) throw new Error('expected an admission from a healthy Redis');
      const ticket = await breaker.tryAcquire('a');
      if (!ticket.ok) throw new Error('expected a closed breaker');

      // Frozen, then killed: this tryEnter is surely written and unanswered when the connection drops.
      server.child.kill('SIGSTOP');
      await expectGovernanceFailure(scope, () => limiter.tryEnter('a', 10));
      await server.stop();
      if (redis.status === 'ready') await once(redis, 'close');
      for (const call of [
        () => limiter.tryEnter('a', 10),
        async () => admission.permit.settle(50),
        async () => admission.permit.release(),
        () => limiter.sourceStats('a'),
        () => breaker.tryAcquire('a'),
        () => breaker.record(ticket, 'failure'),
        () => breaker.snapshot('a'),
      ]) {
        await expectGovernanceFailure(scope, call);
      }

      // Same port, empty server (no persistence): the connection reconnects and the scripts reload.
      const restarted = await startPrivateRedis(Number(new URL(server.url).port));
      try {
        const deadline = Date.now() + BOUND_MS;
        let stats: unknown;
        while (stats === undefined && Date.now() < deadline) {
          stats = await limiter.sourceStats('a').catch(() => new Promise((resolve) => setTimeout(resolve, 100)));
        }
        expect(stats).toEqual({ inflight: 0, rpmUsed: 0, tpmUsed: 0 });
        expect((await limiter.tryEnter('a', 10)).ok).toBe(true);
      } finally {
        await restarted.stop();
      }
    } finally {
      await server.stop();
    }
  });

  it('a Redis that stops answering (SIGSTOP) is bounded by commandTimeoutMs, even on a connection without timeouts', async () => {
    const server = await startPrivateRedis();
    // A user's own connection with ioredis defaults: offline queue on, no command timeout.
    const redis = new Redis(server.url);
    redis.on('error', () => undefined);
    try {
      const { scope, limiter, breaker } = backends(redis, 300);
      expect((await limiter.tryEnter('a', 1)).ok).toBe(true);
      server.child.kill('SIGSTOP');
      await expectGovernanceFailure(scope, () => limiter.tryEnter('a', 1));
      await expectGovernanceFailure(scope, () => breaker.tryAcquire('a'));
    } finally {
      server.child.kill('SIGCONT');
      redis.disconnect();
      await server.stop();
    }
  });

  it('a call that timed out waiting for a connection attempt is not sent when the attempt succeeds', async () => {
    const server = await startPrivateRedis();
    try {
      server.child.kill('SIGSTOP');
      // The TCP handshake completes (kernel backlog) but the ready check waits for a frozen server.
      const redis = pool.open(server.url);
      const { scope, limiter } = backends(redis, 300);
      await expectGovernanceFailure(scope, () => limiter.tryEnter('a', 10));
      server.child.kill('SIGCONT');
      if (redis.status !== 'ready') await once(redis, 'ready');
      expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 0, tpmUsed: 0 });
    } finally {
      server.child.kill('SIGCONT');
      await server.stop();
    }
  });
});
