/**
 * The spend-budget contract every Governor with a budget passes unchanged (memory, Redis, Cluster):
 * reservation at admission in the same operation as the gates, settlement to the cost `finish`
 * reports, a final refusal only when the settled spend leaves no room, UTC periods, per-tenant
 * accounts, and reservations of attempts never finished charged whole after the lease TTL.
 */
import type { BudgetPolicy, BudgetStatus, Lease } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { TEST_BREAKER_POLICY, UNLIMITED } from './fixtures.js';
import type { GovernorFactoryOptions, GovernorUnderTest } from './governor-contract.js';

export type BudgetGovernorFactory = (
  options: GovernorFactoryOptions & { budget: BudgetPolicy },
) => Promise<GovernorUnderTest> | GovernorUnderTest;

type Admitted = Lease;

/** 2026-03-31 23:00:00 UTC: one hour before a day and a month end. */
const LATE_IN_MARCH = Date.UTC(2026, 2, 31, 23, 0, 0);
const LEASE_TTL_MS = 30_000;
/** Float sums of nano-dollars: exact to well within this. */
const CENT_FRACTION = 1e-9;

export function budgetContract(name: string, factory: BudgetGovernorFactory): void {
  describe(`Budget contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup(budget: Partial<BudgetPolicy> = {}, sourceA = UNLIMITED) {
      const clock = new FakeClock(LATE_IN_MARCH);
      const governor = track(
        await factory({
          scope: uniqueScope('budget'),
          sources: { a: sourceA, b: UNLIMITED },
          global: UNLIMITED,
          leaseTtlMs: LEASE_TTL_MS,
          policy: TEST_BREAKER_POLICY,
          now: clock.now,
          budget: { usd: 1, period: 'day', per: 'scope', ...budget },
        }),
      );
      const admit = (reserveUsd: number, tenantId?: string) =>
        Promise.resolve(governor.admit('a', 100, undefined, tenantId === undefined ? { reserveUsd } : { reserveUsd, tenantId }));
      const admitted = async (reserveUsd: number, tenantId?: string): Promise<Admitted> => {
        const answer = await admit(reserveUsd, tenantId);
        if (!answer.ok) throw new Error(`expected an admission of ${reserveUsd} USD, refused: ${JSON.stringify(answer)}`);
        return answer;
      };
      const spend = async (usd: number, tenantId?: string): Promise<void> => {
        await (await admitted(usd, tenantId)).finish('success', 10, usd);
      };
      const status = async (tenantId?: string): Promise<BudgetStatus> => (await governor.budgetStatus!(tenantId))!;
      return { clock, governor, admit, admitted, spend, status };
    }

    it('reserves at admission and settles to the cost finish reports', async () => {
      const { admitted, status } = await setup();
      const attempt = await admitted(0.3);
      expect(await status()).toMatchObject({ budgetUsd: 1, spentUsd: 0, reservedUsd: 0.3 });
      await attempt.finish('success', 10, 0.12);
      await attempt.finish('success', 10, 0.5); // only the first finish counts
      const after = await status();
      expect(after.spentUsd).toBeCloseTo(0.12, 9);
      expect(after.reservedUsd).toBe(0);
    });

    it('refuses for good when the settled spend plus the own reservation exceeds the budget, booking nothing', async () => {
      const { admit, spend, status, governor } = await setup();
      await spend(0.9);
      const refused = await admit(0.2);
      expect(refused).toMatchObject({ ok: false, budget: { exceeded: true, status: { budgetUsd: 1, reservedUsd: 0 } } });
      expect(await governor.limiter.sourceStats('a')).toMatchObject({ inflight: 0, rpmUsed: 1 });
      expect((await status()).spentUsd).toBeCloseTo(0.9, 9);
      // What still fits is admitted: the budget is used up to within one reservation.
      await spend(0.1);
      expect((await status()).spentUsd).toBeCloseTo(1, 9);
    });

    it('asks a caller to wait while others’ reservations hold the room, and admits it once they settle', async () => {
      const { admit, admitted, status } = await setup();
      const first = await admitted(0.6);
      const waiting = await admit(0.6);
      expect(waiting).toMatchObject({ ok: false, budget: { exceeded: false } });
      if (waiting.ok || !('budget' in waiting)) throw new Error('expected a budget refusal');
      expect(waiting.budget.retryAfterMs).toBeGreaterThan(0);
      await first.finish('success', 10, 0.2);
      await (await admitted(0.6)).finish('success', 10, 0.6);
      expect((await status()).spentUsd).toBeCloseTo(0.8, 9);
    });

    it('a gate refusal leaves the budget untouched; finish without a verdict settles the cost it is given', async () => {
      const { admit, admitted, status } = await setup({}, { ...UNLIMITED, maxConcurrency: 1 });
      const holder = await admitted(0.1);
      expect(await admit(0.1)).toMatchObject({ ok: false, gate: 'source_concurrency' });
      expect((await status()).reservedUsd).toBeCloseTo(0.1, 9);
      await holder.finish(undefined, 0, 0);
      expect(await status()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
    });

    it('64 concurrent callers spend the budget exactly: never over it, and no more than one reservation left unused', async () => {
      const { admit, status } = await setup({ usd: 2 });
      const reservation = 0.05;
      let admittedCount = 0;
      const caller = async (index: number): Promise<void> => {
        for (;;) {
          const answer = await admit(reservation);
          if (answer.ok) {
            admittedCount += 1;
            await Promise.resolve();
            // Most attempts cost less than their worst case; some exactly it.
            await answer.finish('success', 10, index % 4 === 0 ? reservation : reservation * 0.6);
            continue;
          }
          if ('budget' in answer && answer.budget.exceeded) return;
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      await Promise.all(Array.from({ length: 64 }, (_, index) => caller(index)));
      const final = await status();
      expect(admittedCount).toBeGreaterThan(40);
      expect(final.reservedUsd).toBe(0);
      expect(final.spentUsd).toBeLessThanOrEqual(2 + CENT_FRACTION);
      expect(2 - final.spentUsd).toBeLessThan(reservation + CENT_FRACTION);
    });

    it('resets at the next UTC period start, and a reservation settles into the period it was made in', async () => {
      const { admit, admitted, spend, status, clock } = await setup({ period: 'day' });
      await spend(0.95);
      const straddling = await admitted(0.05);
      expect(await admit(0.1)).toMatchObject({ ok: false, budget: { exceeded: true, status: { resetAt: Date.UTC(2026, 3, 1) } } });
      clock.set(Date.UTC(2026, 3, 1) + 1);
      expect(await status()).toMatchObject({ spentUsd: 0, reservedUsd: 0, resetAt: Date.UTC(2026, 3, 2) });
      await straddling.finish('success', 10, 0.05);
      expect((await status()).spentUsd).toBe(0);
      await spend(0.9);
      expect((await status()).spentUsd).toBeCloseTo(0.9, 9);
    });

    it.each([
      ['hour', Date.UTC(2026, 3, 1, 0)],
      ['month', Date.UTC(2026, 3, 1)],
    ] as const)('a %s budget resets at %s', async (period, resetAt) => {
      const { spend, status, clock } = await setup({ period });
      await spend(1);
      expect((await status()).resetAt).toBe(resetAt);
      clock.set(resetAt);
      expect((await status()).spentUsd).toBe(0);
    });

    it('UTC periods end where the calendar says: month and year ends, leap days', async () => {
      const { status, clock } = await setup({ period: 'month' });
      for (const [now, resetAt] of [
        [Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1)],
        [Date.UTC(2028, 1, 29, 12), Date.UTC(2028, 2, 1)],
        [Date.UTC(2027, 1, 28, 12), Date.UTC(2027, 2, 1)],
        [Date.UTC(2100, 1, 28), Date.UTC(2100, 2, 1)],
        [Date.UTC(2026, 6, 1), Date.UTC(2026, 7, 1)],
      ] as const) {
        clock.set(now);
        expect((await status()).resetAt, new Date(now).toISOString()).toBe(resetAt);
      }
    });

    it('a total budget never resets', async () => {
      const { spend, status, clock, admit } = await setup({ period: 'total' });
      await spend(1);
      clock.advance(400 * 86_400_000);
      expect(await status()).toMatchObject({ resetAt: undefined });
      expect((await status()).spentUsd).toBeCloseTo(1, 9);
      expect(await admit(0.01)).toMatchObject({ ok: false, budget: { exceeded: true } });
    });

    it('per tenant: each tenant spends its own budget (its own size when given), calls without a tenant share one', async () => {
      const { admit, spend, status } = await setup({ per: 'tenant', tenants: { acme: 2 } });
      await spend(1.5, 'acme');
      await spend(1, 'beta');
      await spend(0.75);
      expect(await admit(0.01, 'beta')).toMatchObject({ ok: false, budget: { exceeded: true, status: { tenantId: 'beta', budgetUsd: 1 } } });
      expect(await admit(0.5, 'acme')).toMatchObject({ ok: true });
      expect(await status('acme')).toMatchObject({ tenantId: 'acme', budgetUsd: 2, reservedUsd: 0.5 });
      expect(await status()).toMatchObject({ budgetUsd: 1 });
      expect((await status()).spentUsd).toBeCloseTo(0.75, 9);
      expect(await status()).not.toHaveProperty('tenantId');
    });

    it('per scope: the tenant does not matter', async () => {
      const { admit, spend, status } = await setup();
      await spend(0.6, 'acme');
      expect(await admit(0.6, 'beta')).toMatchObject({ ok: false, budget: { exceeded: true } });
      expect((await status('beta')).spentUsd).toBeCloseTo(0.6, 9);
    });

    it('an attempt never finished (its process died) is charged whole once its lease expired', async () => {
      const { admitted, status, clock } = await setup();
      await admitted(0.4);
      clock.advance(LEASE_TTL_MS + 1);
      await admitted(0.1);
      const after = await status();
      expect(after.spentUsd).toBeCloseTo(0.4, 9);
      expect(after.reservedUsd).toBeCloseTo(0.1, 9);
    });

    it('an admission without a charge neither reserves nor is refused by the budget', async () => {
      const { governor, spend, status } = await setup();
      await spend(1);
      const answer = await governor.admit('a', 100);
      expect(answer.ok).toBe(true);
      if (answer.ok) await answer.finish('success', 10);
      expect((await status()).spentUsd).toBeCloseTo(1, 9);
    });
  });
}
