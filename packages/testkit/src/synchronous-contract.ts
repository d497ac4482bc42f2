/**
 * For adapters that compute in process (the memory backends): every governance port method answers
 * with a plain value, never a promise, so the middleware's fast path (`isPromise` false) continues at
 * once (docs/decisions.md#lean-hot-path). Failures are thrown synchronously.
 */
import { type GovernorRefusal, type Lease } from '@pgw/core';
import { isPromise } from '@pgw/core/internal';
import { describe, expect, it } from 'vitest';
import { uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { TEST_BREAKER_POLICY, UNLIMITED } from './fixtures.js';
import type { GovernorFactory } from './governor-contract.js';

export function synchronousGovernanceContract(name: string, factory: GovernorFactory): void {
  describe(`synchronous governance contract: ${name}`, () => {
    async function setup() {
      const clock = new FakeClock();
      return factory({
        scope: uniqueScope('sync'),
        sources: { a: { rpm: 100, tpm: 100_000, maxConcurrency: 10 }, b: UNLIMITED },
        global: UNLIMITED,
        leaseTtlMs: 30_000,
        policy: TEST_BREAKER_POLICY,
        now: clock.now,
      });
    }

    /** Returns `answer` after checking it is a plain value. */
    function plain<T>(answer: T | Promise<T>): T {
      expect(isPromise(answer)).toBe(false);
      return answer as T;
    }

    it.each(['a', 'b'])('the limiter, its permits, the breaker and the governor answer synchronously (source %s)', async (source) => {
      const governor = await setup();
      const { limiter, breaker } = governor;
      const admission = plain(limiter.tryEnter(source, 10));
      if (!admission.ok) throw new Error(`expected ${source} to admit`);
      expect(plain(admission.permit.settle(5))).toBeUndefined();
      expect(plain(admission.permit.release())).toBeUndefined();
      const other = plain(limiter.tryEnter(source, 10));
      if (!other.ok || other.permit.settleAndRelease === undefined) throw new Error('expected a permit with settleAndRelease');
      expect(plain(other.permit.settleAndRelease(5))).toBeUndefined();
      expect(plain(limiter.sourceStats(source))).toMatchObject({ inflight: 0, rpmUsed: 2, tpmUsed: 10 });

      const ticket = plain(breaker.tryAcquire(source));
      if (!ticket.ok) throw new Error(`expected the ${source} breaker to admit`);
      expect(plain(breaker.record(ticket, 'success'))).toBeUndefined();
      expect(plain(breaker.releaseProbe(ticket))).toBeUndefined();
      expect(plain(breaker.snapshot(source))).toMatchObject({ state: 'closed', windowSuccesses: 1 });

      const governed: Lease | GovernorRefusal = plain(governor.admit(source, 10));
      if (!governed.ok) throw new Error(`expected the governor to admit ${source}`);
      expect(plain(governed.finish('success', 7))).toBeUndefined();
      expect(plain(limiter.sourceStats(source))).toMatchObject({ inflight: 0, rpmUsed: 3, tpmUsed: 17 });
      await governor.close?.();
    });

    it('a failure is thrown, not returned as a rejected promise', async () => {
      const governor = await setup();
      expect(() => governor.limiter.tryEnter('nope', 1)).toThrow(/nope/);
      expect(() => governor.limiter.tryEnter('a', -1)).toThrow(RangeError);
      expect(() => governor.breaker.tryAcquire('nope')).toThrow(/nope/);
      expect(() => governor.admit('nope', 1)).toThrow(/nope/);
      await governor.close?.();
    });
  });
}
