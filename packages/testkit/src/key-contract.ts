/**
 * The key contract every Governor passes unchanged (memory, Redis, Cluster): a stored key's RPM, TPM
 * and concurrency are gates of the governor (`key_rpm` …), exact under concurrent admissions, checked
 * with its tenant's and booked in the same operation; each key is bounded on its own; 0 is no gate;
 * finish frees the key's slot once; the key's budget reserves and settles like the scope's, refuses
 * for good with the key's id in the refusal, per window (`total` never resets); `keyStatus` reads use
 * and spend. Only the `Governor` port is used.
 */
import type { AdmissionGate, BudgetPolicy, Caller, Governor, GovernorRefusal, KeyBounds, KeyStatus, Lease, TenantPolicy } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { TEST_BREAKER_POLICY, UNLIMITED } from './fixtures.js';
import type { GovernorFactoryOptions } from './governor-contract.js';

export type KeyGovernorFactory = (
  options: GovernorFactoryOptions & { tenants?: TenantPolicy; budget?: BudgetPolicy },
) => Promise<Governor & { close?(): Promise<void> }> | (Governor & { close?(): Promise<void> });

const WINDOW_MS = 60_000;
const CONCURRENT = 48;
/** 2026-03-31 23:00:00 UTC: one hour before a day and a month end. */
const LATE_IN_MARCH = Date.UTC(2026, 2, 31, 23, 0, 0);
const HOUR_MS = 3_600_000;
const NO_BOUNDS = { rpm: 0, tpm: 0, maxConcurrency: 0 };

const keyOf = (id: string, bounds: Partial<Omit<KeyBounds, 'id'>>): KeyBounds => ({ id, ...NO_BOUNDS, ...bounds });
const callerOf = (key: KeyBounds, tenantId = 'acme'): Caller => ({ tenantId, priority: 'interactive', key });

export function keyGatesContract(name: string, factory: KeyGovernorFactory): void {
  describe(`Key contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup(options: { tenants?: TenantPolicy; budget?: BudgetPolicy } = {}) {
      const clock = new FakeClock(LATE_IN_MARCH);
      const governor = track(
        await factory({
          scope: uniqueScope('keys'),
          sources: { a: UNLIMITED },
          global: UNLIMITED,
          leaseTtlMs: 30_000,
          policy: TEST_BREAKER_POLICY,
          now: clock.now,
          ...options,
        }),
      );
      const admit = (caller: Caller, est = 100, reserveUsd?: number) =>
        Promise.resolve(governor.admit('a', est, undefined, reserveUsd === undefined ? undefined : { reserveUsd }, caller));
      const admitted = async (caller: Caller, est = 100, reserveUsd?: number): Promise<Lease> => {
        const answer = await admit(caller, est, reserveUsd);
        if (!answer.ok) throw new Error(`expected an admission, refused: ${JSON.stringify(answer)}`);
        return answer;
      };
      /** `CONCURRENT` admissions at once, alternating between the callers; the leases and refusals of each. */
      const burst = async (callers: readonly Caller[], est = 100) => {
        const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => admit(callers[i % callers.length]!, est)));
        return callers.map((_, c) => {
          const own = answers.filter((_, i) => i % callers.length === c);
          return { leases: own.filter((a): a is Lease => a.ok), refusals: own.filter((a): a is GovernorRefusal => !a.ok) };
        });
      };
      const status = (key: KeyBounds): Promise<KeyStatus> => {
        if (governor.keyStatus === undefined) throw new Error('the governor keeps no key status');
        return Promise.resolve(governor.keyStatus(key));
      };
      return { clock, governor, admit, admitted, burst, status };
    }

    const gatesOf = (refusals: readonly GovernorRefusal[]): (AdmissionGate | 'not a gate')[] => [
      ...new Set(refusals.map((r) => ('gate' in r ? r.gate : ('not a gate' as const)))),
    ];

    it('holds a key’s RPM exactly while its tenant has room, and frees it as the window slides', async () => {
      const { clock, burst, admit } = await setup({ tenants: { bounds: { ...NO_BOUNDS, rpm: 100 }, tenants: {}, batchShare: 0.8 } });
      const key = keyOf('key_rpm', { rpm: 5 });
      const [calls] = await burst([callerOf(key)]);
      expect(calls!.leases).toHaveLength(5);
      expect(gatesOf(calls!.refusals)).toEqual(['key_rpm']);
      const refused = await admit(callerOf(key));
      expect(refused).toMatchObject({ ok: false, gate: 'key_rpm' });
      expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
      // The same tenant without the key still has room: the key's gate is the key's own.
      expect((await admit({ tenantId: 'acme', priority: 'interactive' })).ok).toBe(true);
      clock.advance(WINDOW_MS);
      expect((await admit(callerOf(key))).ok).toBe(true);
    });

    it('bounds two keys of one tenant each on its own, under concurrent admissions', async () => {
      const { burst } = await setup();
      const [x, y] = await burst([callerOf(keyOf('key_x', { rpm: 4 })), callerOf(keyOf('key_y', { rpm: 7 }))]);
      expect(x!.leases).toHaveLength(4);
      expect(y!.leases).toHaveLength(7);
      expect(gatesOf([...x!.refusals, ...y!.refusals])).toEqual(['key_rpm']);
    });

    it('holds a key’s TPM exactly', async () => {
      const { burst } = await setup();
      const [calls] = await burst([callerOf(keyOf('key_tpm', { tpm: 1_000 }))], 100);
      expect(calls!.leases).toHaveLength(10);
      expect(gatesOf(calls!.refusals)).toEqual(['key_tpm']);
    });

    it('checks the tenant’s gates before the key’s', async () => {
      const { admit } = await setup({ tenants: { bounds: { ...NO_BOUNDS, rpm: 1 }, tenants: {}, batchShare: 0.8 } });
      const key = keyOf('key_t', { rpm: 1 });
      expect((await admit(callerOf(key))).ok).toBe(true);
      expect(await admit(callerOf(key))).toMatchObject({ ok: false, gate: 'tenant_rpm' });
    });

    it('holds a key’s concurrency exactly, and releases its slot exactly once', async () => {
      const { burst, admit, status } = await setup();
      const key = keyOf('key_conc', { maxConcurrency: 3 });
      const [calls] = await burst([callerOf(key)]);
      expect(calls!.leases).toHaveLength(3);
      expect(gatesOf(calls!.refusals)).toEqual(['key_concurrency']);
      const [first] = calls!.leases;
      await first!.finish('success', 10);
      await first!.finish('success', 10); // only the first finish counts
      expect(await status(key)).toMatchObject({ inflight: 2 });
      expect((await admit(callerOf(key))).ok).toBe(true);
      expect(await admit(callerOf(key))).toMatchObject({ ok: false, gate: 'key_concurrency' });
      expect(await status(key)).toMatchObject({ inflight: 3, rpmUsed: 4 });
    });

    it('keeps no gate where a bound is 0, and books nothing for a refusal', async () => {
      const { burst, admit, status } = await setup();
      const open = keyOf('key_open', {});
      const [calls] = await burst([callerOf(open)]);
      expect(calls!.refusals).toEqual([]);
      const tight = keyOf('key_tight', { rpm: 10, maxConcurrency: 1 });
      expect((await admit(callerOf(tight), 250)).ok).toBe(true);
      const before = await status(tight);
      for (let i = 0; i < 3; i++) expect(await admit(callerOf(tight))).toMatchObject({ ok: false, gate: 'key_concurrency' });
      expect(await status(tight)).toEqual(before);
      expect(before).toEqual({ rpmUsed: 1, tpmUsed: 250, inflight: 1, spentUsd: 0 });
    });

    it('follows the key’s bounds as they are now (a changed record takes effect on its next call)', async () => {
      const { admit } = await setup();
      expect((await admit(callerOf(keyOf('key_change', { rpm: 1 })))).ok).toBe(true);
      expect(await admit(callerOf(keyOf('key_change', { rpm: 1 })))).toMatchObject({ ok: false, gate: 'key_rpm' });
      expect((await admit(callerOf(keyOf('key_change', { rpm: 2 })))).ok).toBe(true);
    });

    it('settles the key’s TPM to the actual tokens on finish', async () => {
      const { admitted, admit, status } = await setup();
      const key = keyOf('key_settle', { tpm: 1_000 });
      const lease = await admitted(callerOf(key), 600);
      expect(await admit(callerOf(key), 500)).toMatchObject({ ok: false, gate: 'key_tpm' });
      await lease.finish('success', 200);
      expect(await status(key)).toMatchObject({ tpmUsed: 200, inflight: 0 });
      expect((await admit(callerOf(key), 800)).ok).toBe(true);
    });

    it('reserves and settles a key’s budget, and refuses for good with the key’s id once spent, per day', async () => {
      const { clock, admit, admitted, status } = await setup();
      const key = keyOf('key_day', { budget: { usd: 1, window: 'day' } });
      const lease = await admitted(callerOf(key), 100, 0.6);
      // Held by a reservation: a wait, not a final refusal.
      expect(await admit(callerOf(key), 100, 0.6)).toMatchObject({ ok: false, budget: { exceeded: false } });
      await lease.finish('success', 10, 0.7);
      const refused = await admit(callerOf(key), 100, 0.4);
      expect(refused).toMatchObject({ ok: false, budget: { exceeded: true, status: { keyId: 'key_day', budgetUsd: 1, reservedUsd: 0 } } });
      expect((refused as { budget: { status: { spentUsd: number } } }).budget.status.spentUsd).toBeCloseTo(0.7, 9);
      expect(await status(key)).toMatchObject({ resetAt: Date.UTC(2026, 3, 1) });
      expect((await status(key)).spentUsd).toBeCloseTo(0.7, 9);
      // Another key of the same tenant has its own budget.
      expect((await admit(callerOf(keyOf('key_other', { budget: { usd: 1, window: 'day' } })), 100, 0.9)).ok).toBe(true);
      clock.advance(HOUR_MS);
      expect((await admit(callerOf(key), 100, 0.9)).ok).toBe(true);
    });

    it('never resets a key’s total budget', async () => {
      const { clock, admit, admitted, status } = await setup();
      const key = keyOf('key_total', { budget: { usd: 0.5, window: 'total' } });
      await (await admitted(callerOf(key), 100, 0.1)).finish('success', 10, 0.45);
      clock.advance(40 * 24 * HOUR_MS);
      expect(await admit(callerOf(key), 100, 0.1)).toMatchObject({ ok: false, budget: { exceeded: true, status: { keyId: 'key_total', resetAt: undefined } } });
      const after = await status(key);
      expect(after.spentUsd).toBeCloseTo(0.45, 9);
      expect(after.resetAt).toBeUndefined();
    });

    it('keeps the scope’s budget and the key’s side by side: either refuses, the key’s with its id', async () => {
      const { admit, admitted } = await setup({ budget: { usd: 1, period: 'day', per: 'scope' } });
      const key = keyOf('key_both', { budget: { usd: 0.5, window: 'day' } });
      await (await admitted(callerOf(key), 100, 0.2)).finish('success', 10, 0.4);
      expect(await admit(callerOf(key), 100, 0.2)).toMatchObject({ ok: false, budget: { exceeded: true, status: { keyId: 'key_both' } } });
      await (await admitted(callerOf(keyOf('key_rich', {})), 100, 0.5)).finish('success', 10, 0.55);
      const scopeRefusal = await admit(callerOf(keyOf('key_rich', {})), 100, 0.1);
      expect(scopeRefusal).toMatchObject({ ok: false, budget: { exceeded: true } });
      expect((scopeRefusal as { budget: { status: object } }).budget.status).not.toHaveProperty('keyId');
    });

    it('books a key budget’s refusal nothing: neither its gates nor the scope’s budget', async () => {
      const { admit, status, governor } = await setup({ budget: { usd: 10, period: 'day', per: 'scope' } });
      const key = keyOf('key_none', { rpm: 100, budget: { usd: 0.1, window: 'hour' } });
      expect(await admit(callerOf(key), 100, 0.2)).toMatchObject({ ok: false, budget: { exceeded: true, status: { keyId: 'key_none' } } });
      expect(await status(key)).toEqual({ rpmUsed: 0, tpmUsed: 0, inflight: 0, spentUsd: 0, resetAt: Date.UTC(2026, 3, 1) });
      expect(await governor.budgetStatus!()).toMatchObject({ reservedUsd: 0, spentUsd: 0 });
    });
  });
}
