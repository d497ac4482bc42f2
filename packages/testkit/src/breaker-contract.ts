/**
 * The breaker contract (docs/architecture.md#circuit-breaker) every Breaker adapter passes unchanged. Time moves only
 * through the factory's `now`.
 *
 * Rules pinned here beyond the words of docs/architecture.md#circuit-breaker:
 * - half-open is an open breaker whose `openUntil` has passed (at `now == openUntil` it is half-open);
 *   `snapshot().openUntil` is 0 when closed, else the end of the last open period;
 * - health evidence: the consecutive channel does not trip while the failure-rate window holds
 *   ≥ minSamples at a failure rate below failureRate / 2, unless the run reaches 2 × failureThreshold;
 * - `invalid` ends a run of consecutive failures (the service answered) but adds no window sample;
 * - a probe's result counts while its token is the lease on record, even past probeTtlMs if nobody
 *   retook it; once retaken, the old token is fenced like a stale epoch.
 */
import { SourceNotConfiguredError } from '@pgw/core';
import type { BreakerPolicy, Clock, Breaker, BreakerVerdict, BreakerRefusal, BreakerTicket } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { TEST_BREAKER_POLICY, idleBreakerSnapshot } from './fixtures.js';

export interface BreakerFactoryOptions {
  /** Fresh for every test: adapters namespace their state by it. */
  scope: string;
  sources: readonly string[];
  policy: BreakerPolicy;
  now: Clock;
}

export type BreakerFactory = (options: BreakerFactoryOptions) => Promise<Breaker> | Breaker;

export function breakerContract(name: string, factory: BreakerFactory): void {
  describe(`Breaker contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup(policy: Partial<BreakerPolicy> = {}) {
      const clock = new FakeClock();
      const fullPolicy = { ...TEST_BREAKER_POLICY, ...policy };
      const breaker = track(await factory({ scope: uniqueScope('breaker'), sources: ['a', 'b'], policy: fullPolicy, now: clock.now }));
      const acquire = async (source = 'a'): Promise<BreakerTicket> => {
        const ticket = await breaker.tryAcquire(source);
        if (!ticket.ok) throw new Error(`expected ${source} to admit, refused while ${ticket.state}`);
        return ticket;
      };
      const refusal = async (source = 'a'): Promise<BreakerRefusal> => {
        const answer = await breaker.tryAcquire(source);
        if (answer.ok) throw new Error(`expected ${source} to refuse, admitted (probe: ${answer.probe})`);
        return answer;
      };
      /** One attempt per outcome, each admitted and recorded in turn. */
      const run = async (...outcomes: BreakerVerdict[]): Promise<void> => {
        for (const outcome of outcomes) await breaker.record(await acquire(), outcome);
      };
      const trip = () => run('failure', 'failure', 'failure');
      /** Trips the breaker, waits out its first cooldown and takes the half-open probe. */
      const firstProbe = async (): Promise<BreakerTicket> => {
        await trip();
        clock.advance(fullPolicy.cooldownMs);
        return acquire();
      };
      const snapshot = (source = 'a') => breaker.snapshot(source);
      return { clock, breaker, acquire, refusal, run, trip, firstProbe, snapshot };
    }

    it('starts closed and admits with the current epoch', async () => {
      const { acquire, snapshot } = await setup();
      const before = await snapshot();
      expect(before).toMatchObject(idleBreakerSnapshot('a', before.epoch));
      expect(await acquire()).toEqual({ ok: true, source: 'a', epoch: before.epoch, probe: false });
    });

    describe('consecutive channel', () => {
      it('opens at failureThreshold failures in a row, for cooldownMs', async () => {
        const { clock, run, snapshot } = await setup();
        const { epoch } = await snapshot();
        await run('failure', 'failure');
        expect(await snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 2, windowFailures: 2, epoch });
        await run('failure');
        const opened = await snapshot();
        expect(opened).toMatchObject({ state: 'open', openUntil: clock.now() + 1_000, reopenCount: 0, windowFailures: 3 });
        expect(opened.epoch).toBeGreaterThan(epoch);
      });

      it('a success ends the run', async () => {
        const { run, snapshot } = await setup();
        await run('failure', 'failure', 'success', 'failure', 'failure');
        expect(await snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 2, windowSuccesses: 1, windowFailures: 4 });
      });

      it('an invalid result ends the run too, but is no window sample', async () => {
        const { run, snapshot } = await setup();
        await run('failure', 'failure', 'invalid', 'failure', 'failure');
        expect(await snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 2, windowSuccesses: 0, windowFailures: 4 });
      });

      it('health evidence suppresses a false trip, up to twice the threshold', async () => {
        const { run, snapshot } = await setup();
        await run(...Array<BreakerVerdict>(20).fill('success'));
        await run('failure', 'failure', 'failure', 'failure', 'failure');
        // 5 failures of 25 samples = 0.2 < failureRate / 2: a blip in a healthy window.
        expect(await snapshot()).toMatchObject({ state: 'closed', consecutiveFailures: 5 });
        await run('failure');
        expect(await snapshot()).toMatchObject({ state: 'open', consecutiveFailures: 6 });
      });

      it('is not suppressed below minSamples', async () => {
        const { run, snapshot } = await setup();
        await run('success', 'success', 'success', 'success', 'success', 'success');
        await run('failure', 'failure', 'failure');
        expect((await snapshot()).state).toBe('open');
      });

      it('is not suppressed when the window failure rate is not well below the trip rate', async () => {
        const { run, snapshot } = await setup();
        await run(...Array<BreakerVerdict>(7).fill('success'));
        await run('failure', 'failure', 'failure');
        // 3 of 10 = 0.3 ≥ failureRate / 2.
        expect((await snapshot()).state).toBe('open');
      });
    });

    describe('failure-rate channel', () => {
      it('opens at failureRate over the window once it holds minSamples', async () => {
        const { run, snapshot } = await setup({ failureThreshold: 100, minSamples: 4 });
        await run('failure', 'failure', 'success');
        // 2 of 3 is above the rate, but the window is too thin to judge.
        expect(await snapshot()).toMatchObject({ state: 'closed', windowSuccesses: 1, windowFailures: 2 });
        await run('failure');
        expect(await snapshot()).toMatchObject({ state: 'open', consecutiveFailures: 1, windowSuccesses: 1, windowFailures: 3 });
      });

      it('trips at exactly failureRate', async () => {
        const { run, snapshot } = await setup({ failureThreshold: 100, minSamples: 4 });
        await run('success', 'failure', 'success');
        expect((await snapshot()).state).toBe('closed');
        await run('failure');
        expect(await snapshot()).toMatchObject({ state: 'open', windowSuccesses: 2, windowFailures: 2 });
      });

      it('stays closed below failureRate', async () => {
        const { run, snapshot } = await setup({ failureThreshold: 100, minSamples: 4 });
        await run('success', 'failure', 'success', 'success', 'failure', 'success', 'success');
        expect(await snapshot()).toMatchObject({ state: 'closed', windowSuccesses: 5, windowFailures: 2 });
      });

      it('the window slides: samples leave windowMs after they were taken', async () => {
        const { clock, run, snapshot } = await setup({ failureThreshold: 100, minSamples: 5, windowMs: 10_000 });
        await run('failure', 'failure', 'failure');
        clock.advance(5_000);
        await run('success');
        clock.advance(4_999);
        expect(await snapshot()).toMatchObject({ windowSuccesses: 1, windowFailures: 3 });
        clock.advance(1);
        expect(await snapshot()).toMatchObject({ windowSuccesses: 1, windowFailures: 0 });
        await run('failure', 'success');
        expect(await snapshot()).toMatchObject({ state: 'closed', windowSuccesses: 2, windowFailures: 1 });
      });
    });

    it('dead forces open at once, whatever the evidence', async () => {
      const { clock, run, snapshot } = await setup();
      await run(...Array<BreakerVerdict>(20).fill('success'));
      await run('dead');
      expect(await snapshot()).toMatchObject({ state: 'open', openUntil: clock.now() + 1_000 });
    });

    it('while open, refuses with the time left until openUntil', async () => {
      const { clock, refusal, trip, snapshot } = await setup();
      await trip();
      expect(await refusal()).toEqual({ ok: false, source: 'a', state: 'open', retryAfterMs: 1_000 });
      clock.advance(400);
      expect(await refusal()).toEqual({ ok: false, source: 'a', state: 'open', retryAfterMs: 600 });
      expect((await snapshot()).state).toBe('open');
    });

    it('breakers of different sources are independent', async () => {
      const { acquire, trip, snapshot } = await setup();
      await trip();
      expect((await snapshot('b')).state).toBe('closed');
      expect(await acquire('b')).toMatchObject({ ok: true, probe: false });
    });

    describe('half-open', () => {
      it('admits exactly one probe, leased for probeTtlMs', async () => {
        const { clock, acquire, refusal, trip, snapshot } = await setup();
        await trip();
        clock.advance(1_000);
        const { epoch } = await snapshot();
        expect(await snapshot()).toMatchObject({ state: 'half_open', probeHeld: false });
        const probe = await acquire();
        expect(probe).toMatchObject({ ok: true, source: 'a', epoch, probe: true });
        expect(probe.probeToken).toEqual(expect.any(String));
        expect(await snapshot()).toMatchObject({ state: 'half_open', probeHeld: true, epoch });
        expect(await refusal()).toEqual({ ok: false, source: 'a', state: 'half_open', retryAfterMs: 5_000 });
        clock.advance(1_000);
        expect(await refusal()).toMatchObject({ state: 'half_open', retryAfterMs: 4_000 });
      });

      it('reclaims the probe lease of a vanished holder after probeTtlMs and fences its late result', async () => {
        const { clock, breaker, acquire, refusal, snapshot, firstProbe } = await setup();
        const vanished = await firstProbe();
        clock.advance(4_999);
        expect((await refusal()).state).toBe('half_open');
        clock.advance(1);
        expect((await snapshot()).probeHeld).toBe(false);
        const retaken = await acquire();
        expect(retaken.probe).toBe(true);
        expect(retaken.probeToken).not.toBe(vanished.probeToken);

        const before = await snapshot();
        await breaker.record(vanished, 'success');
        await breaker.releaseProbe(vanished);
        expect(await snapshot()).toEqual(before);
        await breaker.record(retaken, 'success');
        expect((await snapshot()).state).toBe('closed');
      });

      it("a late probe's result still counts while nobody retook its lease", async () => {
        const { clock, breaker, snapshot, firstProbe } = await setup();
        const slow = await firstProbe();
        clock.advance(6_000);
        await breaker.record(slow, 'success');
        expect((await snapshot()).state).toBe('closed');
      });

      it('releaseProbe frees the lease without changing state', async () => {
        const { breaker, acquire, snapshot, firstProbe } = await setup();
        const cancelled = await firstProbe();
        const held = await snapshot();
        await breaker.releaseProbe(cancelled);
        expect(await snapshot()).toEqual({ ...held, probeHeld: false });
        const next = await acquire();
        expect(next).toMatchObject({ probe: true, epoch: held.epoch });
        // Releasing the old ticket again must not free the lease someone else now holds.
        await breaker.releaseProbe(cancelled);
        expect((await snapshot()).probeHeld).toBe(true);
      });

      it('releaseProbe of a non-probe ticket is a no-op', async () => {
        const { breaker, acquire, snapshot } = await setup();
        const ticket = await acquire();
        const before = await snapshot();
        await breaker.releaseProbe(ticket);
        expect(await snapshot()).toEqual(before);
      });

      it.each<BreakerVerdict>(['success', 'invalid'])('a probe %s closes: epoch bump, counts and reopenCount reset', async (outcome) => {
        const { clock, breaker, acquire, run, snapshot, firstProbe } = await setup();
        const probe = await firstProbe();
        await breaker.record(probe, 'failure');
        clock.advance(2_000);
        const second = await acquire();
        const { epoch } = await snapshot();
        await breaker.record(second, outcome);
        const closed = await snapshot();
        expect(closed).toMatchObject(idleBreakerSnapshot('a', closed.epoch));
        expect(closed.epoch).toBeGreaterThan(epoch);
        expect(await acquire()).toEqual({ ok: true, source: 'a', epoch: closed.epoch, probe: false });
        await run('failure', 'failure');
        expect((await snapshot()).state).toBe('closed');
        await run('failure');
        // reopenCount was reset: the first open period is cooldownMs again.
        expect(await snapshot()).toMatchObject({ state: 'open', openUntil: clock.now() + 1_000, reopenCount: 0 });
      });

      it.each<BreakerVerdict>(['failure', 'dead'])('a probe %s re-opens for cooldownMs × 2^k, capped by maxCooldownMs', async (outcome) => {
        const { clock, breaker, acquire, trip, snapshot } = await setup();
        await trip();
        let openMs = 1_000;
        for (const [k, expectedMs] of [[1, 2_000], [2, 4_000], [3, 8_000], [4, 8_000], [5, 8_000]] as const) {
          clock.advance(openMs);
          const probe = await acquire();
          const { epoch } = await snapshot();
          await breaker.record(probe, outcome);
          const reopened = await snapshot();
          expect(reopened).toMatchObject({ state: 'open', reopenCount: k, openUntil: clock.now() + expectedMs, probeHeld: false });
          expect(reopened.epoch).toBeGreaterThan(epoch);
          openMs = expectedMs;
        }
      });
    });

    it('a new trip may extend an open deadline but never shortens it', async () => {
      const { clock, breaker, acquire, trip, snapshot } = await setup();
      await trip();
      const firstOpenUntil = clock.now() + 1_000;
      clock.advance(1_000);
      const probe = await acquire();
      // The probe's failure is recorded by a worker whose clock lags far behind.
      clock.set(firstOpenUntil - 50_000);
      await breaker.record(probe, 'failure');
      expect(await snapshot()).toMatchObject({ state: 'open', reopenCount: 1, openUntil: firstOpenUntil });
      clock.set(firstOpenUntil);
      const next = await acquire();
      await breaker.record(next, 'failure');
      expect((await snapshot()).openUntil).toBe(firstOpenUntil + 4_000);
    });

    describe('epoch fencing', () => {
      it('a result carrying a stale epoch changes nothing', async () => {
        const { clock, breaker, acquire, trip, snapshot } = await setup();
        const early = await acquire();
        const earlyDead = await acquire();
        await trip();
        const open = await snapshot();
        expect(open.epoch).toBeGreaterThan(early.epoch);
        for (const outcome of ['success', 'invalid', 'failure', 'dead'] as const) await breaker.record(early, outcome);
        expect(await snapshot()).toEqual(open);

        clock.advance(1_000);
        await breaker.record(await acquire(), 'success');
        const closed = await snapshot();
        await breaker.record(earlyDead, 'dead');
        await breaker.record(early, 'failure');
        expect(await snapshot()).toEqual(closed);
      });

      it("a probe ticket's result from an earlier half-open period is fenced", async () => {
        const { clock, breaker, acquire, snapshot, firstProbe } = await setup();
        const first = await firstProbe();
        await breaker.record(first, 'failure');
        clock.advance(2_000);
        await acquire();
        const before = await snapshot();
        await breaker.record(first, 'success');
        expect(await snapshot()).toEqual(before);
      });
    });

    it('answers each transition it makes, the half-open one once per open period', async () => {
      const { clock, breaker, acquire, trip } = await setup();
      await trip();
      clock.advance(1_000);
      const probe = await acquire();
      expect(probe.transition).toEqual({ from: 'open', to: 'half_open', reason: 'cooldown_elapsed' });
      await breaker.releaseProbe(probe);
      const retaken = await acquire();
      expect(retaken.transition).toBeUndefined();
      expect(await breaker.record(retaken, 'dead')).toEqual({ from: 'half_open', to: 'open', reason: 'probe_failed' });
      clock.advance(2_000);
      const second = await acquire();
      expect(second.transition).toEqual({ from: 'open', to: 'half_open', reason: 'cooldown_elapsed' });
      expect(await breaker.record(second, 'invalid')).toEqual({ from: 'half_open', to: 'closed', reason: 'probe_succeeded' });
      expect(await breaker.record(await acquire(), 'success')).toBeUndefined();
      expect(await breaker.record(await acquire(), 'dead')).toEqual({ from: 'closed', to: 'open', reason: 'source_dead' });
    });

    it('an unknown source is an assembly defect: SourceNotConfiguredError', async () => {
      const { breaker } = await setup();
      for (const call of [async () => breaker.tryAcquire('nope'), async () => breaker.snapshot('nope')]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(SourceNotConfiguredError);
        expect(error).toMatchObject({ sourceName: 'nope' });
      }
    });
  });
}
