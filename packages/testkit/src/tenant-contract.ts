/**
 * The tenant contract every Governor with tenants passes unchanged (memory, Redis, Cluster): each
 * tenant's bound on RPM, TPM and concurrency is exact under concurrent admissions and leaves the
 * other tenants alone; an override beats the bound; the tenant `""` is bounded like any other; batch
 * calls together hold at most the batch share of the scope's limits and of each source's; a refusal books nothing; finish
 * releases the tenant's slot and settles its TPM; `tenantStatus` reports use against the bound.
 * Only the `Governor` port is used.
 */
import type { AdmissionGate, Caller, Clock, GlobalLimits, Governor, GovernorRefusal, Lease, SourceLimits, TenantPolicy, TenantUse } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, uniqueScope } from './contract-support.js';
import { FakeClock } from './fake-clock.js';
import { UNLIMITED } from './fixtures.js';

export interface TenantGovernorFactoryOptions {
  scope: string;
  sources: Record<string, SourceLimits>;
  global: GlobalLimits;
  tenants: TenantPolicy;
  leaseTtlMs: number;
  now: Clock;
}

export type TenantGovernorFactory = (options: TenantGovernorFactoryOptions) => Promise<Governor & { close?(): Promise<void> }> | (Governor & { close?(): Promise<void> });

const WINDOW_MS = 60_000;
const CONCURRENT = 64;
const NO_BOUNDS = { rpm: 0, tpm: 0, maxConcurrency: 0 };

const interactive = (tenantId: string): Caller => ({ tenantId, priority: 'interactive' });
const batch = (tenantId: string): Caller => ({ tenantId, priority: 'batch' });

export function tenantGatesContract(name: string, makeGovernor: TenantGovernorFactory): void {
  describe(`Tenant contract: ${name}`, () => {
    const track = closeAfterEach();

    async function setup(tenants: Partial<TenantPolicy>, global: GlobalLimits = UNLIMITED, sources: Record<string, SourceLimits> = { a: UNLIMITED }) {
      const clock = new FakeClock();
      const governor = track(
        await makeGovernor({
          scope: uniqueScope('tenants'),
          sources,
          global,
          tenants: { bounds: NO_BOUNDS, tenants: {}, batchShare: 0.8, ...tenants },
          leaseTtlMs: 30_000,
          now: clock.now,
        }),
      );
      const admitTo = (source: string, caller?: Caller, est = 100) => Promise.resolve(governor.admit(source, est, undefined, undefined, caller));
      const admit = (caller?: Caller, est = 100) => admitTo('a', caller, est);
      /** `CONCURRENT` admissions at once, alternating between the callers; the leases and refusals of each. */
      const burst = async (callers: readonly Caller[], est = 100) => {
        const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => admit(callers[i % callers.length], est)));
        return callers.map((_, c) => {
          const own = answers.filter((_, i) => i % callers.length === c);
          return { leases: own.filter((a): a is Lease => a.ok), refusals: own.filter((a): a is GovernorRefusal => !a.ok) };
        });
      };
      const status = (tenantId: string): Promise<TenantUse> => {
        if (governor.tenantStatus === undefined) throw new Error('the governor keeps no tenant status');
        return Promise.resolve(governor.tenantStatus(tenantId));
      };
      return { clock, governor, admit, admitTo, burst, status };
    }

    /** The gates the refusals name, each once ('not a gate' for any other refusal). */
    const gatesOf = (refusals: readonly GovernorRefusal[]): (AdmissionGate | 'not a gate')[] => [
      ...new Set(refusals.map((r) => ('gate' in r ? r.gate : ('not a gate' as const)))),
    ];

    it('admits exactly a tenant’s RPM under concurrent admissions, and the other tenant its own', async () => {
      const { clock, burst, admit } = await setup({ bounds: { ...NO_BOUNDS, rpm: 5 } });
      const [x, y] = await burst([interactive('x'), interactive('y')]);
      expect(x!.leases).toHaveLength(5);
      expect(y!.leases).toHaveLength(5);
      expect(gatesOf([...x!.refusals, ...y!.refusals])).toEqual(['tenant_rpm']);
      expect((await admit(interactive('z'))).ok).toBe(true);
      clock.advance(WINDOW_MS);
      expect((await admit(interactive('x'))).ok).toBe(true);
    });

    it('admits exactly a tenant’s TPM under concurrent admissions', async () => {
      const { burst } = await setup({ bounds: { ...NO_BOUNDS, tpm: 1_000 } });
      const [x, y] = await burst([interactive('x'), interactive('y')], 100);
      expect(x!.leases).toHaveLength(10);
      expect(y!.leases).toHaveLength(10);
      expect(gatesOf([...x!.refusals, ...y!.refusals])).toEqual(['tenant_tpm']);
    });

    it('holds exactly a tenant’s concurrency under concurrent admissions, and finish frees its slot', async () => {
      const { burst, admit } = await setup({ bounds: { ...NO_BOUNDS, maxConcurrency: 3 } });
      const [x, y] = await burst([interactive('x'), interactive('y')]);
      expect(x!.leases).toHaveLength(3);
      expect(y!.leases).toHaveLength(3);
      expect(gatesOf([...x!.refusals, ...y!.refusals])).toEqual(['tenant_concurrency']);
      await x!.leases[0]!.finish('success', 10);
      expect((await admit(interactive('x'))).ok).toBe(true);
      expect(await admit(interactive('x'))).toMatchObject({ ok: false, gate: 'tenant_concurrency' });
    });

    it('lets a tenant’s override beat the bound', async () => {
      const { burst } = await setup({ bounds: { ...NO_BOUNDS, rpm: 2 }, tenants: { vip: { rpm: 8 }, free: { rpm: 0 } } });
      const [vip, other, free] = await burst([interactive('vip'), interactive('other'), interactive('free')]);
      expect(vip!.leases).toHaveLength(8);
      expect(other!.leases).toHaveLength(2);
      expect(free!.refusals).toEqual([]);
    });

    it('bounds the tenant "" (calls without a caller) like any other', async () => {
      const { admit, status } = await setup({ bounds: { ...NO_BOUNDS, rpm: 2 } });
      expect((await admit()).ok).toBe(true);
      expect((await admit(interactive(''))).ok).toBe(true);
      expect(await admit()).toMatchObject({ ok: false, gate: 'tenant_rpm' });
      expect((await status('')).rpm).toEqual({ used: 2, bound: 2 });
    });

    it('bounds batch calls together by their share of the scope, and leaves interactive calls the rest', async () => {
      const { burst, admit } = await setup({ batchShare: 0.5 }, { ...UNLIMITED, maxConcurrency: 11 });
      const [b1, b2] = await burst([batch('x'), batch('y')]);
      expect(b1!.leases.length + b2!.leases.length).toBe(5); // floor(0.5 × 11)
      expect(gatesOf([...b1!.refusals, ...b2!.refusals])).toEqual(['batch_concurrency']);
      const [i1] = await burst([interactive('x')]);
      expect(i1!.leases).toHaveLength(6);
      expect(gatesOf(i1!.refusals)).toEqual(['global_concurrency']);
      // The scope's gates are checked before the class's.
      expect(await admit(batch('z'))).toMatchObject({ ok: false, gate: 'global_concurrency' });
    });

    it('bounds batch RPM and TPM by the share too', async () => {
      const { admit } = await setup({ batchShare: 0.5 }, { rpm: 4, tpm: 10_000, maxConcurrency: 0 });
      expect((await admit(batch('x'))).ok).toBe(true);
      expect((await admit(batch('y'))).ok).toBe(true);
      expect(await admit(batch('x'))).toMatchObject({ ok: false, gate: 'batch_rpm' });
      expect((await admit(interactive('x'))).ok).toBe(true);
      const large = await setup({ batchShare: 0.5 }, { rpm: 0, tpm: 1_000, maxConcurrency: 0 });
      expect((await large.admit(batch('x'), 400)).ok).toBe(true);
      expect(await large.admit(batch('x'), 200)).toMatchObject({ ok: false, gate: 'batch_tpm' });
      expect((await large.admit(interactive('x'), 500)).ok).toBe(true);
    });

    it('bounds batch calls by their share of each source’s limits too, where the scope sets none', async () => {
      const { burst, admitTo } = await setup({ batchShare: 0.5 }, UNLIMITED, { a: { ...UNLIMITED, maxConcurrency: 4 }, b: { ...UNLIMITED, maxConcurrency: 3 } });
      const [b1, b2] = await burst([batch('x'), batch('y')]);
      expect(b1!.leases.length + b2!.leases.length).toBe(2); // floor(0.5 × 4)
      expect(gatesOf([...b1!.refusals, ...b2!.refusals])).toEqual(['batch_concurrency']);
      // Each source's share is its own: b still admits floor(0.5 × 3) = 1 batch call.
      expect((await admitTo('b', batch('x'))).ok).toBe(true);
      expect(await admitTo('b', batch('x'))).toMatchObject({ ok: false, gate: 'batch_concurrency' });
      const [i1] = await burst([interactive('x')]);
      expect(i1!.leases).toHaveLength(2);
      expect(gatesOf(i1!.refusals)).toEqual(['source_concurrency']);
    });

    it('bounds batch RPM and TPM by their share of the source’s, at least 1', async () => {
      const { admit } = await setup({ batchShare: 0.5 }, UNLIMITED, { a: { rpm: 3, tpm: 0, maxConcurrency: 0 } });
      expect((await admit(batch('x'))).ok).toBe(true); // max(1, floor(0.5 × 3))
      expect(await admit(batch('y'))).toMatchObject({ ok: false, gate: 'batch_rpm' });
      expect((await admit(interactive('x'))).ok).toBe(true);
      const large = await setup({ batchShare: 0.5 }, UNLIMITED, { a: { rpm: 0, tpm: 1_000, maxConcurrency: 0 } });
      expect((await large.admit(batch('x'), 400)).ok).toBe(true);
      expect(await large.admit(batch('x'), 200)).toMatchObject({ ok: false, gate: 'batch_tpm' });
      expect((await large.admit(interactive('x'), 500)).ok).toBe(true);
    });

    it('holds batch calls to the tighter of the scope’s share and the source’s', async () => {
      const { burst } = await setup({ batchShare: 0.5 }, { ...UNLIMITED, maxConcurrency: 6 }, { a: { ...UNLIMITED, maxConcurrency: 10 } });
      const [b1] = await burst([batch('x')]);
      expect(b1!.leases).toHaveLength(3); // floor(0.5 × 6) < floor(0.5 × 10)
      const tight = await setup({ batchShare: 0.5 }, { ...UNLIMITED, maxConcurrency: 10 }, { a: { ...UNLIMITED, maxConcurrency: 4 } });
      const [b2] = await tight.burst([batch('x')]);
      expect(b2!.leases).toHaveLength(2);
      expect(gatesOf(b2!.refusals)).toEqual(['batch_concurrency']);
    });

    it('books nothing for a refusal', async () => {
      const { admit, status } = await setup({ bounds: { rpm: 100, tpm: 10_000, maxConcurrency: 1 } });
      expect((await admit(interactive('x'), 100)).ok).toBe(true);
      const before = await status('x');
      for (let i = 0; i < 3; i++) expect(await admit(interactive('x'), 100)).toMatchObject({ ok: false, gate: 'tenant_concurrency' });
      expect(await status('x')).toEqual(before);
      expect(before).toMatchObject({ rpm: { used: 1 }, tpm: { used: 100 }, concurrency: { used: 1 } });
    });

    it('releases the tenant’s slot and settles its TPM to the actual tokens on finish', async () => {
      const { admit, status } = await setup({ bounds: { rpm: 0, tpm: 1_000, maxConcurrency: 1 } });
      const lease = await admit(interactive('x'), 600);
      if (!lease.ok) throw new Error(`expected an admission, refused: ${JSON.stringify(lease)}`);
      expect(await admit(interactive('x'), 100)).toMatchObject({ ok: false });
      await lease.finish('success', 200);
      expect(await status('x')).toMatchObject({ tpm: { used: 200 }, concurrency: { used: 0 } });
      expect((await admit(interactive('x'), 700)).ok).toBe(true);
    });

    it('reports a tenant’s use against its bound and its weight', async () => {
      const { admit, status } = await setup({ bounds: { rpm: 3, tpm: 0, maxConcurrency: 2 }, tenants: { x: { tpm: 500, weight: 2 } } });
      expect((await admit(interactive('x'), 120)).ok).toBe(true);
      expect(await status('x')).toEqual({ tenantId: 'x', rpm: { used: 1, bound: 3 }, tpm: { used: 120, bound: 500 }, concurrency: { used: 1, bound: 2 }, weight: 2 });
      expect(await status('nobody')).toEqual({
        tenantId: 'nobody',
        rpm: { used: 0, bound: 3 },
        tpm: { used: 0, bound: 0 },
        concurrency: { used: 0, bound: 2 },
        weight: 1,
      });
    });
  });
}
