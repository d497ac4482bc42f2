/**
 * Contract of the optional `Permit.settleAndRelease`: the same effects and idempotence as `settle`
 * then `release`, the release happening even when the settle is refused. Run by every limiter whose
 * permits offer it.
 */
import type { Permit } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { UNLIMITED } from './fixtures.js';
import type { LimiterFactory } from './limiter-contract.js';

export function settleAndReleaseContract(name: string, factory: LimiterFactory): void {
  describe(`Permit.settleAndRelease contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup() {
      const clock = new FakeClock();
      const limiter = track(
        await factory({ scope: uniqueScope('settle-release'), sources: { a: UNLIMITED }, global: UNLIMITED, leaseTtlMs: 30_000, now: clock.now }),
      );
      const enter = async (est: number): Promise<Required<Permit>> => {
        const admission = await limiter.tryEnter('a', est);
        if (!admission.ok || admission.permit.settleAndRelease === undefined) throw new Error('expected a permit with settleAndRelease');
        return admission.permit as Required<Permit>;
      };
      return { clock, limiter, enter };
    }

    it('charges the actual tokens and frees the slot in one call', async () => {
      const { limiter, enter } = await setup();
      const permit = await enter(100);
      await permit.settleAndRelease(250);
      expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 250 });
    });

    it('is idempotent, and a settle or release after it changes nothing', async () => {
      const { limiter, enter } = await setup();
      const permit = await enter(100);
      const other = await enter(100);
      await permit.settleAndRelease(40);
      await permit.settleAndRelease(900);
      await permit.settle(0);
      await permit.release();
      expect(await limiter.sourceStats('a')).toEqual({ inflight: 1, rpmUsed: 2, tpmUsed: 140 });
      await other.release();
    });

    it('after an earlier settle only releases; after an earlier release only settles', async () => {
      const { limiter, enter } = await setup();
      const settled = await enter(100);
      const released = await enter(100);
      await settled.settle(10);
      await released.release();
      await settled.settleAndRelease(500);
      await released.settleAndRelease(30);
      expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 2, tpmUsed: 40 });
    });

    it('releases the slot even when the settle is refused', async () => {
      const { limiter, enter } = await setup();
      const permit = await enter(100);
      await expect(async () => permit.settleAndRelease(-1)).rejects.toThrow(/actualTokens/);
      expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 100 });
    });

    it('a late call changes nothing in the new window and still frees the slot', async () => {
      const { clock, limiter, enter } = await setup();
      const permit = await enter(100);
      clock.advance(61_000);
      await permit.settleAndRelease(5_000);
      expect(await limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 0, tpmUsed: 0 });
    });
  });
}
