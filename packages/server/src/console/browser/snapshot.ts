/**
 * The console's state as the page receives it from `/ui/events`: the server's `ConsoleState` after
 * JSON (an undefined field is absent). Only what the page shows is named here; the server's tests
 * check at compile time that every `ConsoleState` fits this shape, so the two cannot drift apart.
 */
export interface GateSnapshot {
  readonly used: number;
  /** 0: no bound. */
  readonly bound: number;
}

export interface BreakerSnapshot {
  readonly state: 'closed' | 'open' | 'half_open';
  readonly openUntil: number;
}

export interface SourceSnapshot {
  readonly source: string;
  readonly health: string;
  readonly breaker?: BreakerSnapshot;
  readonly concurrency: GateSnapshot;
  readonly rpm: GateSnapshot;
  readonly tpm: GateSnapshot;
  readonly inflightHere: number;
  readonly recentErrors: readonly { readonly errorClass: string; readonly count: number }[];
}

export interface ScopeSnapshot {
  readonly scope: string;
  readonly shared: boolean;
  readonly sources: readonly SourceSnapshot[];
  readonly problem?: string;
}

export interface TenantSnapshot {
  readonly scope: string;
  /** `''`: the calls without a tenant. */
  readonly tenantId: string;
  readonly atBound: boolean;
  readonly concurrency: GateSnapshot;
  readonly rpm: GateSnapshot;
  readonly tpm: GateSnapshot;
  readonly waiting: number;
}

export interface BudgetSnapshot {
  readonly scope: string;
  /** Absent for the scope's own budget. */
  readonly tenantId?: string;
  readonly budgetUsd: number;
  readonly spentUsd: number;
  readonly reservedUsd: number;
  readonly leftUsd: number;
  /** Absent for a `total` budget, which never resets. */
  readonly resetAt?: number | null;
}

export interface FailureSnapshot {
  readonly at: number;
  readonly scope: string;
  readonly source?: string;
  readonly errorClass: string;
  readonly callId: string;
}

export interface PointSnapshot {
  readonly calls: number;
  readonly errors: number;
  /** Absent when no call ended in the step. */
  readonly p50Ms?: number | null;
  readonly p99Ms?: number | null;
}

export interface PanelSnapshot {
  readonly id: string;
  readonly title: string;
  readonly table?: { readonly columns: readonly string[]; readonly rows: readonly (readonly (string | number)[])[] };
  readonly problem?: string;
}

export interface KeySnapshot {
  readonly id: string;
  readonly name: string | null;
  readonly tenant: string;
  /** The key's first characters, for recognition (never the key). */
  readonly prefix: string;
  readonly state: string;
  /** 0: no bound. */
  readonly limits: { readonly rpm: number; readonly tpm: number; readonly maxConcurrency: number };
  readonly budget: { readonly usd: number; readonly window: string } | null;
  /** ISO 8601. */
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  /** Absent when the governance could not be read for it. */
  readonly usage?: { readonly rpmUsed: number; readonly tpmUsed: number; readonly inflight: number; readonly spentUsd: number };
}

export interface KeysSnapshot {
  readonly list: readonly KeySnapshot[];
  /** Why the keys could not be read. */
  readonly problem?: string;
}

export interface ConsoleSnapshot {
  readonly generatedAt: number;
  readonly draining: boolean;
  readonly scopes: readonly ScopeSnapshot[];
  readonly tenants: readonly TenantSnapshot[];
  readonly budgets: readonly BudgetSnapshot[];
  readonly failuresHere: readonly FailureSnapshot[];
  readonly seriesHere: { readonly bucketMs: number; readonly points: readonly PointSnapshot[] };
  readonly panels: readonly PanelSnapshot[];
  /** Absent on a server without a key store. */
  readonly keys?: KeysSnapshot;
}
