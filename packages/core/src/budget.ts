/**
 * Spend budgets (docs/architecture.md#spend-budgets): a bound on spend in dollars. Admission
 * reserves an attempt's worst-case cost, settlement replaces it with the billed cost, and a call is
 * refused for good only when the settled spend leaves no room for its own reservation. The store
 * keeps amounts as whole nano-dollars (integers stay exact in Lua and in JS alike).
 */
import { PolyGatewayError } from './errors.js';
import type { ModelPrice } from './pricing.js';

/** UTC calendar periods; `total` never resets. */
export const BUDGET_PERIODS = ['hour', 'day', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** `tenant`: each `tenantId` has a budget of its own; calls without a tenant share one. */
export type BudgetPer = 'scope' | 'tenant';

export interface BudgetPolicy {
  /** USD per period (per tenant when `per` is `tenant`). */
  usd: number;
  period: BudgetPeriod;
  per: BudgetPer;
  /** Per-tenant amounts over `usd` (only with `per: 'tenant'`). */
  tenants?: Readonly<Record<string, number>>;
}

/** What one attempt asks of its scope's budget at admission. */
export interface BudgetCharge {
  readonly tenantId?: string;
  /** The attempt's worst-case cost in USD. */
  readonly reserveUsd: number;
}

/** One budget as the store sees it now. */
export interface BudgetStatus {
  readonly scope: string;
  /** Present for a per-tenant budget of a call with a tenant. */
  readonly tenantId?: string;
  /** Present for a key's own budget (docs/architecture.md#keys): the key's id. */
  readonly keyId?: string;
  readonly budgetUsd: number;
  readonly spentUsd: number;
  /** Held by attempts in flight. */
  readonly reservedUsd: number;
  /** Start of the next period (ms since epoch); undefined for `total`. */
  readonly resetAt: number | undefined;
}

/** A governor's refusal on the budget: `exceeded` is final, otherwise others' reservations hold the room. */
export interface BudgetRefusal {
  readonly exceeded: boolean;
  readonly status: BudgetStatus;
  readonly retryAfterMs: number;
}

export const NANO_PER_USD = 1e9;
/** The largest budget whose nano-dollars stay exact integers (2^53 nano-dollars). */
export const MAX_BUDGET_USD = 9_000_000;

/** USD as whole nano-dollars, rounded up: a charge is never under-counted. */
export function toNanoUsd(usd: number): number {
  return Math.ceil(usd * NANO_PER_USD - 1e-6);
}

export function fromNanoUsd(nano: number): number {
  return nano / NANO_PER_USD;
}

/** The period containing `now`: its start and the next one's (undefined for `total`), in UTC. */
export function budgetPeriodAt(period: BudgetPeriod, now: number): { start: number; resetAt: number | undefined } {
  const d = new Date(now);
  const [y, m, day, h] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours()];
  switch (period) {
    case 'hour':
      return { start: Date.UTC(y, m, day, h), resetAt: Date.UTC(y, m, day, h + 1) };
    case 'day':
      return { start: Date.UTC(y, m, day), resetAt: Date.UTC(y, m, day + 1) };
    case 'month':
      return { start: Date.UTC(y, m, 1), resetAt: Date.UTC(y, m + 1, 1) };
    case 'total':
      return { start: 0, resetAt: undefined };
  }
}

/** Which budget a call spends: `undefined` is the scope's (or, per tenant, the tenant-less calls' shared one). */
export function budgetTenantOf(policy: BudgetPolicy, tenantId: string | undefined): string | undefined {
  return policy.per === 'tenant' ? tenantId : undefined;
}

export function budgetUsdOf(policy: BudgetPolicy, tenant: string | undefined): number {
  return (tenant !== undefined && policy.tenants !== undefined && Object.hasOwn(policy.tenants, tenant) ? policy.tenants[tenant] : undefined) ?? policy.usd;
}

/**
 * An attempt's worst-case cost: the prompt's estimated tokens at the input price plus the most it
 * may answer at the output price (the reasoning price where the source has a higher one: the
 * answer may be all reasoning).
 */
export function worstCaseCostUsd(price: ModelPrice, promptTokens: number, maxOutputTokens: number): number {
  const outputPerMTok = Math.max(price.outputPerMTok, price.reasoningPerMTok ?? 0);
  return (promptTokens * price.inputPerMTok + maxOutputTokens * outputPerMTok) / 1_000_000;
}

/** Checks a budget given in code or env; throws RangeError naming `origin` and the bad field. */
export function assertBudgetPolicy(policy: BudgetPolicy, origin = 'budget'): void {
  const amount = (value: unknown, name: string): void => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_BUDGET_USD) {
      throw new RangeError(`${name} must be a number of USD > 0 and ≤ ${MAX_BUDGET_USD}, got ${String(value)}`);
    }
  };
  amount(policy.usd, `${origin}.usd`);
  if (!BUDGET_PERIODS.includes(policy.period)) throw new RangeError(`${origin}.period must be one of ${BUDGET_PERIODS.join(' | ')}`);
  if (policy.per !== 'scope' && policy.per !== 'tenant') throw new RangeError(`${origin}.per must be scope | tenant`);
  if (policy.tenants === undefined) return;
  if (policy.per !== 'tenant') throw new RangeError(`${origin}.tenants needs ${origin}.per = 'tenant'`);
  for (const [tenant, usd] of Object.entries(policy.tenants)) amount(usd, `${origin}.tenants.${tenant}`);
}

/**
 * The budget has no room for this call: its settled spend plus the call's own reservation exceeds
 * it. Final — never retried, never a breaker's business, thrown whatever `QUOTA_FULL` says.
 */
export class BudgetExceededError extends PolyGatewayError {
  static override readonly kind: string = 'BudgetExceededError';
  readonly scope: string;
  readonly tenantId: string | undefined;
  /** The key whose own budget has no room; undefined when the scope's (or the tenant's) budget refused. */
  readonly keyId: string | undefined;
  readonly budgetUsd: number;
  readonly spentUsd: number;
  /** Start of the next period (ms since epoch); undefined for `total`. */
  readonly resetAt: number | undefined;
  /** Until `resetAt`; undefined for `total`. */
  readonly retryAfterMs: number | undefined;

  constructor(options: { status: BudgetStatus; now: number; cause?: unknown }) {
    const { status, now } = options;
    const who = status.keyId !== undefined ? ` of key ${status.keyId}` : status.tenantId === undefined ? '' : ` for tenant ${status.tenantId}`;
    super({
      message:
        `scope ${status.scope}: spend budget of ${status.budgetUsd} USD${who} has no room left ` +
        `(${status.spentUsd.toFixed(6)} USD spent${status.resetAt === undefined ? '' : `, resets at ${new Date(status.resetAt).toISOString()}`})`,
      cause: options.cause,
    });
    this.scope = status.scope;
    this.tenantId = status.tenantId;
    this.keyId = status.keyId;
    this.budgetUsd = status.budgetUsd;
    this.spentUsd = status.spentUsd;
    this.resetAt = status.resetAt;
    this.retryAfterMs = status.resetAt === undefined ? undefined : Math.max(0, status.resetAt - now);
  }
}
