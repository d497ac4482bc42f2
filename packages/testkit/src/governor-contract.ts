/**
 * The contract every Governor passes unchanged: `admit` asks the breaker, then the six gates;
 * `finish` sends the breaker's verdict (or gives the probe lease back) and settles and releases the
 * permit — with the same effects as those calls on the governor's own `breaker` and `limiter`, which
 * the checks read back — and each operation answers the breaker transition it made.
 */
import type { BreakerPolicy, Clock, Breaker, GlobalLimits, Governor, Lease, Limiter, SourceLimits } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { TEST_BREAKER_POLICY, UNLIMITED } from './fixtures.js';

export interface GovernorFactoryOptions {
  scope: string;
  sources: Record<string, SourceLimits>;
  global: GlobalLimits;
  leaseTtlMs: number;
  policy: BreakerPolicy;
  now: Clock;
}

/** A governor and its two halves over the same books. */
export type GovernorUnderTest = Governor & { readonly limiter: Limiter; readonly breaker: Breaker; close?(): Promise<void> };

export type GovernorFactory = (options: GovernorFactoryOptions) => Promise<GovernorUnderTest> | GovernorUnderTest;

export function governorContract(name: string, factory: GovernorFactory): void {
  describe(`Governor contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup(sourceA: Partial<SourceLimits> = {}) {
      const clock = new FakeClock();
      const governor = track(
        await factory({
          scope: uniqueScope('governor'),
          sources: { a: { ...UNLIMITED, ...sourceA }, b: UNLIMITED },
          global: UNLIMITED,
          leaseTtlMs: 30_000,
          policy: { ...TEST_BREAKER_POLICY, failureThreshold: 2 },
          now: clock.now,
        }),
      );
      const admitted = async (source = 'a', est = 100): Promise<Lease> => {
        const answer = await governor.admit(source, est);
        if (!answer.ok) throw new Error(`expected ${source} to admit, refused: ${JSON.stringify(answer)}`);
        return answer;
      };
      /** Two failures in a row trip `a`; the cooldown (1 s) is then waited out. */
      const tripThenCool = async (): Promise<void> => {
        for (let i = 0; i < 2; i++) await (await admitted()).finish('failure', 0);
        expect((await governor.breaker.snapshot('a')).state).toBe('open');
        clock.advance(TEST_BREAKER_POLICY.cooldownMs);
      };
      return { clock, governor, admitted, tripThenCool };
    }

    it('admits with a lease, and finish writes the verdict, the settle and the release', async () => {
      const { governor, admitted } = await setup();
      const admission = await admitted('a', 100);
      expect(admission).toMatchObject({ ok: true, source: 'a', estTokens: 100 });
      expect(admission.transition).toBeUndefined();
      expect(await governor.limiter.sourceStats('a')).toEqual({ inflight: 1, rpmUsed: 1, tpmUsed: 100 });
      await admission.finish('success', 40);
      expect(await governor.limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 40 });
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'closed', windowSuccesses: 1, windowFailures: 0 });
    });

    // breakerSnapshot is optional in the port; every governor of this repository has it.
    it('shows its breaker books through breakerSnapshot, as its breaker does', async () => {
      const { governor, admitted } = await setup();
      if (governor.breakerSnapshot === undefined) return;
      expect(await governor.breakerSnapshot('a')).toEqual(await governor.breaker.snapshot('a'));
      for (let i = 0; i < 2; i++) await (await admitted()).finish('failure', 0);
      const tripped = await governor.breakerSnapshot('a');
      expect(tripped.state).toBe('open');
      expect(tripped.openUntil).toBeGreaterThan(0);
      expect(tripped).toEqual(await governor.breaker.snapshot('a'));
    });

    it('counts only the first finish', async () => {
      const { governor, admitted } = await setup();
      const admission = await admitted();
      await admission.finish('failure', 30);
      await admission.finish('failure', 90);
      expect(await governor.limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 30 });
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'closed', consecutiveFailures: 1, windowFailures: 1 });
    });

    it('an open breaker refuses without touching a gate', async () => {
      const { governor, admitted } = await setup();
      for (let i = 0; i < 2; i++) await (await admitted()).finish('failure', 0);
      const answer = await governor.admit('a', 100);
      expect(answer).toMatchObject({ ok: false, refusal: { ok: false, source: 'a', state: 'open', retryAfterMs: 1_000 } });
      expect(await governor.limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 2, tpmUsed: 0 });
    });

    it('a full gate refuses, books nothing and leaves no probe lease', async () => {
      const { governor, admitted, tripThenCool } = await setup({ maxConcurrency: 1 });
      await tripThenCool();
      const holder = await admitted('a', 10); // the half-open probe, holding the only slot
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'half_open', probeHeld: true });
      await holder.finish(undefined, 0); // no verdict: the lease is given back, the breaker stays half-open
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'half_open', probeHeld: false });
      const probe = await admitted('a', 10);
      expect(await governor.breaker.snapshot('a')).toMatchObject({ probeHeld: true });
      await probe.finish(undefined, 0);
      const other = await governor.limiter.tryEnter('a', 10); // the slot taken directly, through the port
      if (!other.ok) throw new Error('expected the slot to be free');
      expect(await governor.admit('a', 10)).toMatchObject({ ok: false, gate: 'source_concurrency' });
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'half_open', probeHeld: false });
      await other.permit.release();
      const next = await admitted('a', 10);
      expect(await governor.breaker.snapshot('a')).toMatchObject({ probeHeld: true });
      await next.finish('success', 10);
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'closed' });
    });

    it("a probe's verdict closes or reopens the breaker", async () => {
      const { governor, admitted, tripThenCool } = await setup();
      await tripThenCool();
      const probe = await admitted();
      expect(await governor.breaker.snapshot('a')).toMatchObject({ probeHeld: true });
      await probe.finish('failure', 0);
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'open', reopenCount: 1 });
    });

    it('reports each transition from the operation that made it: closed→open→half_open→open→half_open→closed', async () => {
      const { clock, governor, admitted } = await setup();
      expect(await (await admitted()).finish('failure', 0)).toBeUndefined();
      expect(await (await admitted()).finish('failure', 0)).toEqual({ from: 'closed', to: 'open', reason: 'failures' });
      clock.advance(TEST_BREAKER_POLICY.cooldownMs);
      const probe = await admitted();
      expect(probe.transition).toEqual({ from: 'open', to: 'half_open', reason: 'cooldown_elapsed' });
      expect(await probe.finish('failure', 0)).toEqual({ from: 'half_open', to: 'open', reason: 'probe_failed' });
      clock.advance(2 * TEST_BREAKER_POLICY.cooldownMs);
      const cancelled = await admitted();
      expect(cancelled.transition).toEqual({ from: 'open', to: 'half_open', reason: 'cooldown_elapsed' });
      expect(await cancelled.finish(undefined, 0)).toBeUndefined(); // given back: still half-open, nothing to report
      const second = await admitted();
      expect(second.transition).toBeUndefined(); // the same half-open period: reported once
      expect(await second.finish('success', 0)).toEqual({ from: 'half_open', to: 'closed', reason: 'probe_succeeded' });
      expect(await (await admitted()).finish('success', 0)).toBeUndefined();
    });

    it('reports a dead source as source_dead, and half-open once across a quota refusal', async () => {
      const { clock, governor, admitted } = await setup({ maxConcurrency: 1 });
      expect(await (await admitted()).finish('dead', 0)).toEqual({ from: 'closed', to: 'open', reason: 'source_dead' });
      clock.advance(TEST_BREAKER_POLICY.cooldownMs);
      const other = await governor.limiter.tryEnter('a', 10);
      if (!other.ok) throw new Error('expected the slot to be free');
      const refused = await governor.admit('a', 10);
      expect(refused).toMatchObject({ ok: false, gate: 'source_concurrency' });
      await other.permit.release();
      const probe = await admitted();
      // A backend that asks its gates first reports it with the probe; `governorOf` with the refusal.
      const reported = [refused, probe].flatMap((answer) => ('transition' in answer && answer.transition ? [answer.transition] : []));
      expect(reported).toEqual([{ from: 'open', to: 'half_open', reason: 'cooldown_elapsed' }]);
      await probe.finish('success', 0);
    });

    it('a stale verdict reports nothing', async () => {
      const { governor, admitted } = await setup();
      const early = await admitted();
      expect(await (await admitted()).finish('dead', 0)).toMatchObject({ to: 'open' });
      expect(await early.finish('failure', 0)).toBeUndefined();
      expect(await governor.breaker.snapshot('a')).toMatchObject({ state: 'open', reopenCount: 0 });
    });

    it('sources are independent', async () => {
      const { governor, admitted } = await setup();
      for (let i = 0; i < 2; i++) await (await admitted('a')).finish('failure', 0);
      const b = await admitted('b', 5);
      await b.finish('success', 5);
      expect(await governor.limiter.sourceStats('b')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 5 });
    });
  });
}
