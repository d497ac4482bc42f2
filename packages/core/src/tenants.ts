/**
 * Tenants (docs/architecture.md#tenants): who a call is for. Every tenant of a scope has a bound of
 * its own on RPM, TPM and concurrency (checked with the scope's and the source's in one store
 * operation), a weight for its share of a full scope, and a priority class per call: `batch` calls
 * together hold at most the batch share of the scope's limits and of each source's, and wait while an
 * interactive call of the scope waits.
 */
import type { KeyBounds } from './keys.js';

/** The priority classes, most urgent first. */
export const PRIORITIES = ['interactive', 'batch'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** The bound one tenant gets in a scope (0 = unlimited); the scope's own limits have the same shape. */
export interface TenantBounds {
  rpm: number;
  tpm: number;
  maxConcurrency: number;
}

/** One tenant's overrides (`{SCOPE}__TENANTS`, `tenants` in code). */
export interface TenantOverride {
  rpm?: number;
  tpm?: number;
  maxConcurrency?: number;
  /** Its share of a full scope against the others that wait (default 1). */
  weight?: number;
  /** Its spend budget per period (needs the scope's budget `per: 'tenant'`). */
  budgetUsd?: number;
}

/** A scope's tenant policy: the bound every tenant gets, the overrides, and the batch class's share. */
export interface TenantPolicy {
  bounds: TenantBounds;
  tenants: Readonly<Record<string, TenantOverride>>;
  /** The part of the scope's RPM, TPM and concurrency, and of each source's, that batch calls together may hold, in (0, 1]. */
  batchShare: number;
}

export const DEFAULT_BATCH_SHARE = 0.8;

export const NO_TENANT_POLICY: TenantPolicy = Object.freeze({
  bounds: Object.freeze({ rpm: 0, tpm: 0, maxConcurrency: 0 }),
  tenants: Object.freeze({}),
  batchShare: DEFAULT_BATCH_SHARE,
});

/** Who an attempt is for. Calls without a tenant are the tenant `""`, bounded like any other. */
export interface Caller {
  readonly tenantId: string;
  readonly priority: Priority;
  /** The stored API key the call came with: its own gates and budget, checked with the tenant's (docs/architecture.md#keys). */
  readonly key?: KeyBounds;
}

export const DEFAULT_CALLER: Caller = Object.freeze({ tenantId: '', priority: 'interactive' });

/** A tenant's three gates, in the order they are checked (after the source's and the scope's). */
export const TENANT_GATES = ['tenant_rpm', 'tenant_tpm', 'tenant_concurrency'] as const;
export type TenantGate = (typeof TENANT_GATES)[number];

/** The batch class's three gates: its share of the scope's limits, and of each source's. */
export const BATCH_GATES = ['batch_rpm', 'batch_tpm', 'batch_concurrency'] as const;
export type BatchGate = (typeof BATCH_GATES)[number];

/** What one tenant gets: its bound and its weight. */
export interface TenantShare extends TenantBounds {
  readonly weight: number;
}

/** The bound and weight of `tenantId` under `policy`. */
export function tenantShareOf(policy: TenantPolicy, tenantId: string): TenantShare {
  const own = Object.hasOwn(policy.tenants, tenantId) ? policy.tenants[tenantId] : undefined;
  const { bounds } = policy;
  return {
    rpm: own?.rpm ?? bounds.rpm,
    tpm: own?.tpm ?? bounds.tpm,
    maxConcurrency: own?.maxConcurrency ?? bounds.maxConcurrency,
    weight: own?.weight ?? 1,
  };
}

/** Whether any tenant has a bound of its own: without one, no tenant's books are kept. */
export function tenantsBounded(policy: TenantPolicy): boolean {
  const set = (b: Partial<TenantBounds>) => (b.rpm ?? 0) > 0 || (b.tpm ?? 0) > 0 || (b.maxConcurrency ?? 0) > 0;
  return set(policy.bounds) || Object.values(policy.tenants).some(set);
}

/**
 * The batch class's limits under `limits` (the scope's, or one source's): its share of each (0 stays
 * unlimited), rounded down but at least 1, so a batch can always run.
 */
export function batchLimitsOf(limits: TenantBounds, share: number): TenantBounds {
  const part = (limit: number) => (limit > 0 ? Math.max(1, Math.floor(limit * share)) : 0);
  return { rpm: part(limits.rpm), tpm: part(limits.tpm), maxConcurrency: part(limits.maxConcurrency) };
}

/** Whether the batch share binds any of `limits`: a share of 1, or no limit set, keeps no batch books. */
export function batchShareBinds(limits: TenantBounds, share: number): boolean {
  const part = batchLimitsOf(limits, share);
  return part.rpm < limits.rpm || part.tpm < limits.tpm || part.maxConcurrency < limits.maxConcurrency;
}

/** Checks a policy built in code; names the field (and the tenant) that is wrong. */
export function assertTenantPolicy(policy: TenantPolicy, origin = 'tenants'): void {
  const count = (value: unknown, name: string) => {
    if (value !== undefined && (!Number.isSafeInteger(value) || (value as number) < 0)) {
      throw new RangeError(`${name} must be a whole number ≥ 0, got ${JSON.stringify(value)}`);
    }
  };
  for (const key of ['rpm', 'tpm', 'maxConcurrency'] as const) count(policy.bounds[key], `${origin}.bounds.${key}`);
  if (!(policy.batchShare > 0 && policy.batchShare <= 1)) throw new RangeError(`${origin}.batchShare must be in (0, 1], got ${policy.batchShare}`);
  for (const [tenant, own] of Object.entries(policy.tenants)) {
    for (const key of ['rpm', 'tpm', 'maxConcurrency'] as const) count(own[key], `${origin}.tenants.${tenant}.${key}`);
    if (own.weight !== undefined && !(Number.isFinite(own.weight) && own.weight > 0)) {
      throw new RangeError(`${origin}.tenants.${tenant}.weight must be a number > 0, got ${JSON.stringify(own.weight)}`);
    }
  }
}

/** One gate of a tenant: what it holds now against its bound (0 = unlimited). */
export interface GateUse {
  readonly used: number;
  readonly bound: number;
}

/** One tenant's use of a scope now, as the governor's books have it. */
export interface TenantUse {
  readonly tenantId: string;
  readonly rpm: GateUse;
  readonly tpm: GateUse;
  readonly concurrency: GateUse;
  readonly weight: number;
}
