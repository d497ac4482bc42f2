/**
 * The console's one picture of the governance now (`ConsoleState`), assembled from the clients'
 * public status calls — `sourceStatus()`, `tenantStatus()`, `budgetStatus()` — and what this process
 * saw of its calls (ConsoleActivity). On Redis the breakers, quotas, budgets and tenants are the
 * fleet's books; the numbers marked `Here` (attempts in flight, recent errors, failures, the series)
 * are this process's own. Nothing is changed by reading it.
 */
import type { BudgetStatus, EmbeddingClient, GatewayClient, SourceStatus, TenantStatus } from '@pgw/client';
import { errorType } from '../operations/metrics.js';
import type { BuiltClient, ClientKind, ScopeClients } from '../scope-clients.js';
import { BUCKET_MS, type ConsoleActivity, type ConsolePoint, type FailedCall, type SourceActivity } from './activity.js';

/** How many tenants the console shows: the keys' tenants first, then those of recent calls. */
export const MAX_CONSOLE_TENANTS = 20;

/** A table a panel shows (the batches, or a panel given in the options): cells are text, rendered as text. */
export interface ConsoleTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
}

/** An extra panel of the console: read on every refresh; a panel that throws shows its error class instead. */
export interface ConsolePanel {
  readonly id: string;
  readonly title: string;
  read(): ConsoleTable | Promise<ConsoleTable>;
}

export type SourceHealth = 'healthy' | 'degraded' | 'recovering' | 'down' | 'unknown';

export interface SourceView extends SourceStatus, SourceActivity {
  readonly health: SourceHealth;
}

export interface ScopeView {
  readonly scope: string;
  readonly kind: ClientKind;
  /** Whether the scope's governance is shared by a fleet (Redis). */
  readonly shared: boolean;
  readonly sources: readonly SourceView[];
  /** Why the scope's status could not be read (its client did not assemble, or its store failed). */
  readonly problem?: string;
}

export interface TenantView extends Omit<TenantStatus, 'budget' | 'weight'> {
  readonly scope: string;
  /** A gate of the tenant is at its bound, or its calls wait here. */
  readonly atBound: boolean;
}

export interface BudgetView extends BudgetStatus {
  readonly leftUsd: number;
}

export interface PanelView {
  readonly id: string;
  readonly title: string;
  readonly table?: ConsoleTable;
  readonly problem?: string;
}

/** A stored key as the Keys panel shows it: its record (never the key) and its use now. */
export interface KeyView {
  readonly id: string;
  readonly name: string | null;
  readonly tenant: string;
  readonly prefix: string;
  readonly state: 'active' | 'rotating' | 'revoked';
  readonly limits: { readonly rpm: number; readonly tpm: number; readonly maxConcurrency: number };
  readonly budget: { readonly usd: number; readonly window: string } | null;
  readonly expiresAt: string | null;
  readonly lastUsedAt: string | null;
  /** Absent when the governance could not be read for the key. */
  readonly usage?: { readonly rpmUsed: number; readonly tpmUsed: number; readonly inflight: number; readonly spentUsd: number };
}

export interface KeysView {
  readonly list: readonly KeyView[];
  readonly problem?: string;
}

export interface ConsoleState {
  readonly generatedAt: number;
  readonly draining: boolean;
  readonly scopes: readonly ScopeView[];
  readonly tenants: readonly TenantView[];
  readonly budgets: readonly BudgetView[];
  /** This process's recent failed calls, newest first. */
  readonly failuresHere: readonly FailedCall[];
  /** This process's calls over the last minutes. */
  readonly seriesHere: { readonly bucketMs: number; readonly points: readonly ConsolePoint[] };
  readonly panels: readonly PanelView[];
  /** The stored keys; absent on a server without a key store. */
  readonly keys?: KeysView;
}

export interface ConsoleSources {
  clients: ScopeClients;
  activity: ConsoleActivity;
  /** The tenants of the server's keys. */
  keyTenants: () => readonly string[];
  draining: () => boolean;
  panels: readonly ConsolePanel[];
  /** The stored keys with their use, when the server keeps keys. */
  keys?: () => Promise<readonly KeyView[]>;
}

export async function readConsoleState(sources: ConsoleSources): Promise<ConsoleState> {
  const { activity } = sources;
  const tenantIds = tenantsToShow(sources.keyTenants(), activity.seenTenants());
  const built = await sources.clients.built();
  const scopes = await Promise.all(built.map((entry) => scopeOf(entry, tenantIds, activity)));
  const [panels, keys] = await Promise.all([Promise.all(sources.panels.map(panelOf)), sources.keys && keysOf(sources.keys)]);
  return {
    generatedAt: Date.now(),
    draining: sources.draining(),
    scopes: scopes.map(({ view }) => view),
    tenants: scopes.flatMap(({ tenants }) => tenants),
    budgets: uniqueBudgets(scopes.flatMap(({ budgets }) => budgets)),
    failuresHere: activity.failures(),
    seriesHere: { bucketMs: BUCKET_MS, points: activity.series() },
    panels,
    ...(keys && { keys }),
  };
}

/** The keys, or why they could not be read (the rest of the picture is shown either way). */
async function keysOf(read: () => Promise<readonly KeyView[]>): Promise<KeysView> {
  try {
    return { list: await read() };
  } catch (error) {
    return { list: [], problem: `not readable (${errorType(error)})` };
  }
}

/** The keys' tenants, then those of recent calls, at most MAX_CONSOLE_TENANTS. */
export function tenantsToShow(keyTenants: readonly string[], seen: readonly string[]): string[] {
  return [...new Set([...keyTenants, ...seen])].slice(0, MAX_CONSOLE_TENANTS);
}

interface ScopeReading {
  view: ScopeView;
  tenants: TenantView[];
  budgets: BudgetView[];
}

async function scopeOf(built: BuiltClient, tenantIds: readonly string[], activity: ConsoleActivity): Promise<ScopeReading> {
  const { kind, scope } = built;
  if (built.client === undefined) return { view: { scope, kind, shared: false, sources: [], problem: built.problem }, tenants: [], budgets: [] };
  const { client } = built;
  const shared = client.settings.backends.limiter === 'redis';
  try {
    const [sources, tenants, budget] = await Promise.all([client.sourceStatus(), tenantsOf(client, tenantIds), client.budgetStatus()]);
    const views = sources.map((source) => sourceView(source, activity.source(scope, source.source)));
    const budgets = [budget, ...tenants.map((tenant) => tenant.budget)].flatMap((status) => (status === undefined ? [] : [budgetView(status)]));
    return { view: { scope, kind, shared, sources: views }, tenants: tenants.map((tenant) => tenantView(scope, tenant)), budgets };
  } catch (error) {
    return { view: { scope, kind, shared, sources: [], problem: `status not readable (${errorType(error)})` }, tenants: [], budgets: [] };
  }
}

/** A governor without tenant books answers no tenant's status: the scope then shows none. */
async function tenantsOf(client: GatewayClient | EmbeddingClient, tenantIds: readonly string[]): Promise<TenantStatus[]> {
  try {
    return await Promise.all(tenantIds.map((id) => client.tenantStatus(id)));
  } catch (error) {
    if (error instanceof TypeError) return [];
    throw error;
  }
}

function sourceView(status: SourceStatus, here: SourceActivity): SourceView {
  return { ...status, ...here, health: healthOf(status, here) };
}

function healthOf(status: SourceStatus, here: SourceActivity): SourceHealth {
  switch (status.breaker?.state) {
    case 'open':
      return 'down';
    case 'half_open':
      return 'recovering';
    case 'closed':
      return here.recentErrors.length > 0 ? 'degraded' : 'healthy';
    default:
      return 'unknown';
  }
}

function tenantView(scope: string, { budget: _budget, weight: _weight, ...status }: TenantStatus): TenantView {
  const gates = [status.rpm, status.tpm, status.concurrency];
  return { ...status, scope, atBound: status.waiting > 0 || gates.some(({ used, bound }) => bound > 0 && used >= bound) };
}

function budgetView(status: BudgetStatus): BudgetView {
  return { ...status, leftUsd: Math.max(0, status.budgetUsd - status.spentUsd - status.reservedUsd) };
}

/** A scope-wide budget is what every tenant's call spends: shown once. */
function uniqueBudgets(budgets: readonly BudgetView[]): BudgetView[] {
  const byKey = new Map(budgets.map((budget) => [`${budget.scope}\u0000${budget.tenantId ?? ''}`, budget]));
  return [...byKey.values()];
}

async function panelOf(panel: ConsolePanel): Promise<PanelView> {
  const { id, title } = panel;
  try {
    return { id, title, table: await panel.read() };
  } catch (error) {
    return { id, title, problem: `not readable (${errorType(error)})` };
  }
}
