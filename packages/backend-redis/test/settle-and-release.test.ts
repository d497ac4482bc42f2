import { once } from 'node:events';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GovernanceBackendError, type Permit } from '@pgw/core';
import { FakeClock, UNLIMITED } from '@pgw/testkit';
import { RedisLimiter } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const pool = connectionPool();
afterAll(() => pool.closeAll());

/** Redis-specific `settleAndRelease` behaviour: one round trip, script-level idempotence, fail-closed. The shared semantics are in testkit's settleAndReleaseContract. */
describe('RedisLimiter permits: settleAndRelease', () => {
  function setup() {
    const clock = new FakeClock();
    const redis = pool.open();
    const limiter = new RedisLimiter({ redis, scope: uniqueScope('settle-release'), sources: { a: UNLIMITED }, global: UNLIMITED, leaseTtlMs: 30_000, now: clock.now });
    const enter = async (est: number): Promise<Required<Permit>> => {
      const admission = await limiter.tryEnter('a', est);
      if (!admission.ok || admission.permit.settleAndRelease === undefined) throw new Error('expected a permit with settleAndRelease');
      return admission.permit as Required<Permit>;
    };
    return { redis, limiter, enter };
  }

  it('charges the actual tokens and frees the slot in one round trip', async () => {
    const { redis, limiter, enter } = setup();
    await (await enter(1)).settleAndRelease(1); // the script is loaded on the connection
    const permit = await enter(100);
    const sent = vi.spyOn(redis, 'sendCommand');
    try {
      await permit.settleAndRelease(250);
      expect(sent).toHaveBeenCalledTimes(1);
    } finally {
      sent.mockRestore();
    }
    expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 2, tpmUsed: 251 });
  });

  it('is idempotent in the script itself: concurrent calls charge once and free once', async () => {
    const { limiter, enter } = setup();
    const permit = await enter(100);
    const other = await enter(100);
    await Promise.all([permit.settleAndRelease(40), permit.settleAndRelease(900)]);
    await permit.settle(0);
    await permit.release();
    const stats = await limiter.sourceStats('a');
    expect(stats.inflight).toBe(1);
    expect([140, 1000]).toContain(stats.tpmUsed); // whichever call ran first is the one settle
    await other.release();
  });

  it('fails closed while its connection is down, is replayed once it is back, and a retry changes nothing', async () => {
    const { redis, limiter, enter } = setup();
    const permit = await enter(100);
    const back = once(redis, 'ready');
    redis.disconnect(true); // drops this connection only (the server keeps the books); it reconnects in the background
    await expect(permit.settleAndRelease(70)).rejects.toBeInstanceOf(GovernanceBackendError);
    await back;
    await expect.poll(() => limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 70 });
    await permit.settleAndRelease(70);
    await permit.settleAndRelease(70);
    expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 70 });
  });
});
