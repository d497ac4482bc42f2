/**
 * The limiter contract (docs/architecture.md#admission-the-six-gates) every Limiter adapter passes unchanged. Time moves only through
 * the factory's `now`: an adapter under test must read that clock for every decision (the Redis
 * adapter passes it into its scripts instead of Redis TIME). A port method may answer with a promise
 * or a plain value (a synchronous failure is then thrown): the suite awaits both.
 *
 * Rule pinned here beyond the words of docs/architecture.md#admission-the-six-gates: a source with
 * neither an RPM nor a TPM limit may report `rpmUsed`/`tpmUsed` from per-second buckets (an entry
 * leaves up to 1 s early, never late); the cases below read such a source at whole seconds or
 * within one, where both ways agree, and the property run accepts either.
 */
import { LIMIT_GATES, SourceNotConfiguredError } from '@pgw/core';
import type { LimitAdmission, Clock, GlobalLimits, LimitGate, Limiter, Permit, SourceLimits, SourceStats } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { UNLIMITED } from './fixtures.js';
import { LIMITER_PROPERTY_OPS, limiterPropertyRun } from './limiter-property.js';

export interface LimiterFactoryOptions {
  /** Fresh for every test: adapters namespace their state by it. */
  scope: string;
  sources: Record<string, SourceLimits>;
  global: GlobalLimits;
  leaseTtlMs: number;
  now: Clock;
}

export type LimiterFactory = (options: LimiterFactoryOptions) => Promise<Limiter> | Limiter;

/** RPM/TPM windows of the contract slide over one minute. */
export const LIMITER_WINDOW_MS = 60_000;

const LEASE_TTL_MS = 30_000;

/** Sources `a` (with the given limits) and `b` (unlimited). */
function limitA(limits: Partial<SourceLimits>): Record<string, SourceLimits> {
  return { a: { ...UNLIMITED, ...limits }, b: UNLIMITED };
}

export function limiterContract(name: string, factory: LimiterFactory): void {
  describe(`Limiter contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup(options: Partial<Omit<LimiterFactoryOptions, 'now' | 'scope'>> = {}) {
      const clock = new FakeClock();
      const limiter = track(
        await factory({
          scope: uniqueScope('limiter'),
          sources: { a: UNLIMITED, b: UNLIMITED },
          global: UNLIMITED,
          leaseTtlMs: LEASE_TTL_MS,
          ...options,
          now: clock.now,
        }),
      );
      const stats = async (): Promise<Record<'a' | 'b', SourceStats>> => ({
        a: await limiter.sourceStats('a'),
        b: await limiter.sourceStats('b'),
      });
      return { clock, limiter, stats };
    }

    it('admits within limits and books one request, its estimate and one slot', async () => {
      const { limiter, stats } = await setup({ sources: limitA({ rpm: 10, tpm: 10_000, maxConcurrency: 5 }) });
      const permit = await enter(limiter, 'a', 700);
      expect(permit.source).toBe('a');
      expect(permit.estTokens).toBe(700);
      expect(await stats()).toEqual({ a: { inflight: 1, rpmUsed: 1, tpmUsed: 700 }, b: { inflight: 0, rpmUsed: 0, tpmUsed: 0 } });
    });

    describe('each of the six gates denies with its name and consumes nothing', () => {
      interface GateCase {
        gate: LimitGate;
        sources?: Record<string, SourceLimits>;
        global?: GlobalLimits;
        fill: Array<['a' | 'b', number]>;
        probe: ['a' | 'b', number];
      }
      const cases: GateCase[] = [
        { gate: 'source_rpm', sources: limitA({ rpm: 2 }), fill: [['a', 1], ['a', 1]], probe: ['a', 1] },
        { gate: 'source_tpm', sources: limitA({ tpm: 1000 }), fill: [['a', 600]], probe: ['a', 500] },
        { gate: 'source_concurrency', sources: limitA({ maxConcurrency: 2 }), fill: [['a', 1], ['a', 1]], probe: ['a', 1] },
        { gate: 'global_rpm', global: { ...UNLIMITED, rpm: 2 }, fill: [['a', 1], ['b', 1]], probe: ['a', 1] },
        { gate: 'global_tpm', global: { ...UNLIMITED, tpm: 1000 }, fill: [['a', 600]], probe: ['b', 500] },
        { gate: 'global_concurrency', global: { ...UNLIMITED, maxConcurrency: 2 }, fill: [['a', 1], ['b', 1]], probe: ['a', 1] },
      ];

      it.each(cases)('$gate', async ({ gate, sources, global, fill, probe }) => {
        const { clock, limiter, stats } = await setup({ ...(sources && { sources }), ...(global && { global }) });
        const held: Permit[] = [];
        for (const [source, est] of fill) held.push(await enter(limiter, source, est));
        clock.advance(10_000);
        const before = await stats();

        const denied = await limiter.tryEnter(...probe);
        expect(denied).toMatchObject({ ok: false, gate });
        expect(await stats()).toEqual(before);
        const hint = (denied as Extract<LimitAdmission, { ok: false }>).retryAfterMs;

        if (gate.endsWith('_concurrency')) {
          // A slot frees on release, which no clock predicts: the hint is a short poll.
          expect(hint).toBeGreaterThan(0);
          expect(hint).toBeLessThanOrEqual(1_000);
          await held[0]!.release();
        } else {
          // The oldest entry (taken 10 s ago) leaves the 60 s window in 50 s.
          expect(hint).toBe(50_000);
          clock.advance(hint - 1);
          expect(await limiter.tryEnter(...probe)).toMatchObject({ ok: false, gate });
          clock.advance(1);
        }
        expect(await limiter.tryEnter(...probe)).toMatchObject({ ok: true });
      });

      it('a denied estimate is not charged: a smaller one still fits exactly', async () => {
        const { limiter, stats } = await setup({ sources: limitA({ tpm: 1000 }) });
        await enter(limiter, 'a', 600);
        expect(await limiter.tryEnter('a', 401)).toMatchObject({ ok: false, gate: 'source_tpm' });
        await enter(limiter, 'a', 400);
        expect((await stats()).a.tpmUsed).toBe(1000);
      });

      it('a per-source gate leaves other sources alone', async () => {
        const { limiter } = await setup({ sources: limitA({ rpm: 1, tpm: 100, maxConcurrency: 1 }) });
        await enter(limiter, 'a', 100);
        expect(await limiter.tryEnter('a', 1)).toMatchObject({ ok: false });
        await enter(limiter, 'b', 5_000);
      });

      it('checks source gates before global ones, each in the order rpm, tpm, concurrency', async () => {
        const full = { rpm: 1, tpm: 100, maxConcurrency: 1 };
        const { limiter } = await setup({ sources: limitA(full), global: full });
        await enter(limiter, 'a', 100);
        expect(await limiter.tryEnter('a', 100)).toMatchObject({ ok: false, gate: 'source_rpm' });
        expect(await limiter.tryEnter('b', 100)).toMatchObject({ ok: false, gate: 'global_rpm' });
      });
    });

    it('0 means unlimited for every gate', async () => {
      const { limiter, stats } = await setup();
      for (let i = 0; i < 200; i++) await enter(limiter, i % 2 === 0 ? 'a' : 'b', 1_000_000);
      expect(await stats()).toEqual({
        a: { inflight: 100, rpmUsed: 100, tpmUsed: 100_000_000 },
        b: { inflight: 100, rpmUsed: 100, tpmUsed: 100_000_000 },
      });
    });

    it('an estimate larger than the whole TPM limit runs alone, when the window holds no tokens', async () => {
      const { clock, limiter } = await setup({ sources: limitA({ tpm: 1000 }) });
      const big = await enter(limiter, 'a', 5_000);
      expect(await limiter.tryEnter('a', 5_000)).toMatchObject({ ok: false, gate: 'source_tpm' });
      expect(await limiter.tryEnter('a', 1)).toMatchObject({ ok: false, gate: 'source_tpm' });
      await big.settle(0);
      await enter(limiter, 'a', 5_000);
      clock.advance(LIMITER_WINDOW_MS);
      await enter(limiter, 'a', 5_000);
    });

    describe('settle applies actual − est to TPM', () => {
      it.each([
        { actual: 0, tpmUsed: 0 },
        { actual: 1_500, tpmUsed: 1_500 },
        { actual: 250, tpmUsed: 250 },
        { actual: 1_000, tpmUsed: 1_000 },
      ])('est 1000, actual $actual → tpmUsed $tpmUsed', async ({ actual, tpmUsed }) => {
        const { limiter, stats } = await setup();
        const permit = await enter(limiter, 'a', 1_000);
        await permit.settle(actual);
        expect((await stats()).a).toEqual({ inflight: 1, rpmUsed: 1, tpmUsed });
      });

      it('counts only the first settle', async () => {
        const { limiter, stats } = await setup();
        const permit = await enter(limiter, 'a', 1_000);
        await permit.settle(100);
        await permit.settle(900);
        await permit.settle(0);
        expect((await stats()).a.tpmUsed).toBe(100);
      });

      it('a refund frees budget in the same window', async () => {
        const { limiter } = await setup({ sources: limitA({ tpm: 1000 }) });
        const permit = await enter(limiter, 'a', 800);
        expect(await limiter.tryEnter('a', 300)).toMatchObject({ ok: false, gate: 'source_tpm' });
        await permit.settle(700);
        await enter(limiter, 'a', 300);
      });

      it('settles both the source and the scope-wide TPM', async () => {
        const { limiter } = await setup({ global: { ...UNLIMITED, tpm: 1000 } });
        const permit = await enter(limiter, 'a', 900);
        expect(await limiter.tryEnter('b', 200)).toMatchObject({ ok: false, gate: 'global_tpm' });
        await permit.settle(800);
        await enter(limiter, 'b', 200);
      });

      it('settle and release are independent: either order, each once', async () => {
        const { limiter, stats } = await setup();
        const first = await enter(limiter, 'a', 100);
        const second = await enter(limiter, 'a', 100);
        await first.release();
        await first.settle(40);
        await second.settle(10);
        await second.release();
        expect((await stats()).a).toEqual({ inflight: 0, rpmUsed: 2, tpmUsed: 50 });
      });

      it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects actualTokens %s with a RangeError', async (bad) => {
        const { limiter, stats } = await setup();
        const permit = await enter(limiter, 'a', 100);
        await expect(async () => permit.settle(bad)).rejects.toThrow(RangeError);
        await permit.settle(30);
        expect((await stats()).a.tpmUsed).toBe(30);
      });
    });

    describe('a settle after its window rolled over', () => {
      it.each([0, 50, 5_000])('with actual %s neither refunds into nor charges the new window', async (actual) => {
        const { clock, limiter, stats } = await setup({ sources: limitA({ tpm: 1000 }) });
        const old = await enter(limiter, 'a', 500);
        clock.advance(LIMITER_WINDOW_MS);
        await enter(limiter, 'a', 100);
        await old.settle(actual);
        expect((await stats()).a).toEqual({ inflight: 1, rpmUsed: 1, tpmUsed: 100 });
        await enter(limiter, 'a', 900);
        expect(await limiter.tryEnter('a', 1)).toMatchObject({ ok: false, gate: 'source_tpm' });
      });
    });

    describe('permits are leases', () => {
      it('release frees the slot and is idempotent', async () => {
        const { limiter, stats } = await setup({ sources: limitA({ maxConcurrency: 2 }) });
        const first = await enter(limiter, 'a', 1);
        await enter(limiter, 'a', 1);
        await first.release();
        await first.release();
        expect((await stats()).a.inflight).toBe(1);
        await enter(limiter, 'a', 1);
        await first.release();
        expect((await stats()).a.inflight).toBe(2);
        expect(await limiter.tryEnter('a', 1)).toMatchObject({ ok: false, gate: 'source_concurrency' });
      });

      it('a permit never released is reclaimed leaseTtlMs after it was granted', async () => {
        const { clock, limiter, stats } = await setup({ global: { ...UNLIMITED, maxConcurrency: 1 } });
        const abandoned = await enter(limiter, 'a', 10);
        clock.advance(LEASE_TTL_MS - 1);
        expect((await stats()).a.inflight).toBe(1);
        expect(await limiter.tryEnter('b', 1)).toMatchObject({ ok: false, gate: 'global_concurrency' });
        clock.advance(1);
        expect((await stats()).a.inflight).toBe(0);
        await enter(limiter, 'b', 1);
        // The late release of a reclaimed lease must not free the slot someone else now holds.
        await abandoned.release();
        expect((await stats()).b.inflight).toBe(1);
        expect(await limiter.tryEnter('a', 1)).toMatchObject({ ok: false, gate: 'global_concurrency' });
      });

      it('a reclaimed lease keeps its RPM and TPM charge until its window passes', async () => {
        const { clock, limiter, stats } = await setup();
        await enter(limiter, 'a', 300);
        clock.advance(LEASE_TTL_MS);
        expect((await stats()).a).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 300 });
      });
    });

    it('windows slide over 60 s: each entry leaves 60 s after it was taken', async () => {
      const { clock, limiter, stats } = await setup({ sources: limitA({ rpm: 2 }) });
      await release(enter(limiter, 'a', 100));
      clock.advance(20_000);
      await release(enter(limiter, 'a', 200));
      clock.advance(10_000);
      expect(await limiter.tryEnter('a', 1)).toEqual({ ok: false, gate: 'source_rpm', retryAfterMs: 30_000 });
      clock.advance(29_999);
      expect((await stats()).a).toEqual({ inflight: 0, rpmUsed: 2, tpmUsed: 300 });
      clock.advance(1);
      expect((await stats()).a).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 200 });
      await release(enter(limiter, 'a', 1));
      expect(await limiter.tryEnter('a', 1)).toEqual({ ok: false, gate: 'source_rpm', retryAfterMs: 20_000 });
      clock.advance(LIMITER_WINDOW_MS);
      expect((await stats()).a).toEqual({ inflight: 0, rpmUsed: 0, tpmUsed: 0 });
    });

    it('an unknown source is an assembly defect: SourceNotConfiguredError', async () => {
      const { limiter } = await setup();
      for (const call of [async () => limiter.tryEnter('nope', 1), async () => limiter.sourceStats('nope')]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(SourceNotConfiguredError);
        expect(error).toMatchObject({ sourceName: 'nope' });
      }
    });

    it.each([-1, 2.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects estTokens %s with a RangeError, consuming nothing', async (bad) => {
      const { limiter, stats } = await setup();
      await expect(async () => limiter.tryEnter('a', bad)).rejects.toThrow(RangeError);
      expect((await stats()).a).toEqual({ inflight: 0, rpmUsed: 0, tpmUsed: 0 });
    });

    it('scopes are isolated', async () => {
      const one = await setup({ sources: limitA({ rpm: 1, maxConcurrency: 1 }) });
      const two = await setup({ sources: limitA({ rpm: 1, maxConcurrency: 1 }) });
      await enter(one.limiter, 'a', 1);
      await enter(two.limiter, 'a', 1);
      expect((await two.stats()).a).toEqual({ inflight: 1, rpmUsed: 1, tpmUsed: 1 });
    });

    it(`property: over ${LIMITER_PROPERTY_OPS} random operations per seed, every verdict and the books match a model`, async () => {
      const verdicts = new Set<string>();
      // Seeds chosen so that, together, their scenarios make each of the six gates deny.
      for (const seed of [4, 10, 11]) {
        const tally = await limiterPropertyRun(seed, async (options) =>
          track(await factory({ ...options, scope: uniqueScope('limiter') })),
        );
        for (const verdict of Object.keys(tally)) verdicts.add(verdict);
      }
      expect([...verdicts].sort()).toEqual(['ok', ...LIMIT_GATES].sort());
      // 15,000 store operations: a cluster on a loaded machine needs more than the default 20 s.
    }, 120_000);
  });
}

async function enter(limiter: Limiter, source: string, estTokens: number): Promise<Permit> {
  const admission = await limiter.tryEnter(source, estTokens);
  if (!admission.ok) throw new Error(`expected ${source} to admit ${estTokens} tokens, denied by ${admission.gate}`);
  return admission.permit;
}

async function release(permit: Promise<Permit>): Promise<void> {
  await (await permit).release();
}
