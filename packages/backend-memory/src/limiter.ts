import { DEFAULT_CALLER, SourceNotConfiguredError } from '@pgw/core';
import { assertNonNegativeInteger, assertPositiveMs, assertTenantPolicy, batchLimitsOf, batchShareBinds, NO_TENANT_POLICY, tenantsBounded, tenantShareOf } from '@pgw/core/internal';
import type { AdmissionGate, Caller, KeyBounds, LimitAdmission, Clock, GlobalLimits, Limiter, Permit, SourceLimits, SourceStats, TenantPolicy, TenantUse } from '@pgw/core';
import { SecondBuckets } from './second-buckets.js';
import { SlidingWindow } from './sliding-window.js';

/** RPM and TPM windows slide over one minute. */
export const LIMIT_WINDOW_MS = 60_000;

/**
 * Retry hint of a full concurrency gate. A slot frees when some holder releases, which no clock
 * predicts, so the caller is told to look again soon.
 */
export const CONCURRENCY_POLL_MS = 250;

type Denial = { readonly ok: false; readonly gate: AdmissionGate; readonly retryAfterMs: number };
type Level = 'source' | 'global' | 'tenant' | 'key' | 'batch';
/** Tenants' (and keys') books kept at most; past it, the idle ones (nothing in flight, nothing in the window) are dropped. */
const MAX_TENANT_BOOKS = 10_000;

/** Where a permit's reservation sits in one level's books: a window entry or a bucket; none when nothing is kept. */
const NOT_CHARGED = -1;

export interface InMemoryLimiterOptions {
  scope: string;
  sources: Record<string, SourceLimits>;
  global: GlobalLimits;
  /** Each tenant's bound and the batch share (default: none bounded, share 0.8). */
  tenants?: TenantPolicy;
  /** A permit never released is reclaimed this long after it was granted. */
  leaseTtlMs: number;
  now?: Clock;
}

/**
 * The accounts of one gate triple (a source's, or the scope's). RPM and TPM are kept exactly (an
 * entry per admission) only while one of them is limited: that is what admits or denies. A source
 * without either still reports its usage (`sourceStats` is public), from per-second buckets; the
 * scope-wide triple without either keeps nothing but its in-flight count.
 */
class Books {
  inflight = 0;
  private readonly window: SlidingWindow | undefined;
  private readonly usage: SecondBuckets | undefined;

  /** `exact`: an entry per admission whatever the limits (a key's limits change with its record). */
  constructor(
    public limits: SourceLimits,
    reportsUsage: boolean,
    exact = false,
  ) {
    const limited = exact || limits.rpm > 0 || limits.tpm > 0;
    this.window = limited ? new SlidingWindow(LIMIT_WINDOW_MS) : undefined;
    this.usage = !limited && reportsUsage ? new SecondBuckets(LIMIT_WINDOW_MS) : undefined;
  }

  /**
   * The first of the triple's gates (RPM, TPM, concurrency; 0 = unlimited) that would be exceeded.
   * An estimate larger than the whole TPM limit is admitted when the window holds no tokens,
   * otherwise it could never run.
   */
  denial(level: Level, estTokens: number, now: number): Denial | undefined {
    const { limits, window } = this;
    if (window !== undefined) {
      window.evict(now);
      if (limits.rpm > 0 && window.count >= limits.rpm) return deny(`${level}_rpm`, window.msUntilOldestLeaves(now));
      if (limits.tpm > 0 && window.weight > 0 && window.weight + estTokens > limits.tpm) {
        return deny(`${level}_tpm`, window.msUntilOldestLeaves(now));
      }
    }
    if (limits.maxConcurrency > 0 && this.inflight >= limits.maxConcurrency) {
      return deny(`${level}_concurrency`, CONCURRENCY_POLL_MS);
    }
    return undefined;
  }

  /** Books one request of `estTokens` and one slot; returns where the reservation sits, for `recharge`. */
  charge(estTokens: number, now: number): number {
    this.inflight += 1;
    if (this.window !== undefined) return this.window.add(now, estTokens);
    if (this.usage !== undefined) return this.usage.add(now, estTokens);
    return NOT_CHARGED;
  }

  /**
   * Re-weighs a reservation from `estTokens` to `actualTokens` where it was booked. One that already
   * left its window keeps out of the sums, so a late settle neither refunds into nor charges the
   * current window, and no sum can go below 0.
   */
  recharge(mark: number, estTokens: number, actualTokens: number): void {
    if (mark === NOT_CHARGED) return;
    if (this.window !== undefined) this.window.reweigh(mark, actualTokens);
    else this.usage?.reweigh(mark, actualTokens - estTokens);
  }

  /** Nothing in flight and nothing in the window: the books can go (a tenant's are made again on its next call). */
  idle(now: number): boolean {
    if (this.inflight > 0) return false;
    this.window?.evict(now);
    return this.window === undefined || this.window.count === 0;
  }

  stats(now: number): SourceStats {
    const counted = this.window ?? this.usage;
    if (counted === undefined) return { inflight: this.inflight, rpmUsed: 0, tpmUsed: 0 };
    counted.evict(now);
    return { inflight: this.inflight, rpmUsed: counted.count, tpmUsed: counted.weight };
  }
}

/**
 * The six gates of docs/architecture.md#admission-the-six-gates for one process, answering
 * synchronously. Every operation is O(1) amortised: windows are deques with running sums, and the
 * permits in flight are a list in grant order, which is their expiry order, so expired ones are
 * reclaimed from its front, lazily, by whichever operation comes next.
 */
export class InMemoryLimiter implements Limiter {
  private readonly scope: string;
  private readonly now: Clock;
  private readonly sources = new Map<string, Books>();
  private readonly leases: Leases;
  private readonly tenantPolicy: TenantPolicy;
  /** Each tenant's books, while any tenant has a bound. */
  private readonly tenants: Map<string, Books> | undefined;
  /** Each key's books, made on its first call (docs/architecture.md#keys). */
  private readonly keys = new Map<string, Books>();
  /** The batch class's books, while its share binds a limit of the scope. */
  private readonly batch: Books | undefined;
  /** The batch class's books on each source whose limits its share binds. */
  private readonly sourceBatch = new Map<string, Books>();

  constructor(options: InMemoryLimiterOptions) {
    assertPositiveMs(options.leaseTtlMs, 'leaseTtlMs');
    this.scope = options.scope;
    this.now = options.now ?? Date.now;
    this.leases = new Leases(openBooks(options.global, 'global', false), options.leaseTtlMs);
    this.tenantPolicy = options.tenants ?? NO_TENANT_POLICY;
    assertTenantPolicy(this.tenantPolicy);
    const share = this.tenantPolicy.batchShare;
    for (const [name, limits] of Object.entries(options.sources)) {
      this.sources.set(name, openBooks(limits, `sources.${name}`, true));
      if (batchShareBinds(limits, share)) this.sourceBatch.set(name, new Books(batchLimitsOf(limits, share), false));
    }
    this.tenants = tenantsBounded(this.tenantPolicy) ? new Map() : undefined;
    const { global } = options;
    this.batch = batchShareBinds(global, share) ? new Books(batchLimitsOf(global, share), false) : undefined;
  }

  tryEnter(source: string, estTokens: number): LimitAdmission {
    const entered = this.enter(source, estTokens);
    return entered instanceof LeasedPermit ? { ok: true, permit: entered } : entered;
  }

  /**
   * `tryEnter` without the admission's wrapper, for `caller`: the permit, or the denial. The gates
   * are asked in order source, scope, tenant, key, batch class (its share of the scope's, then of the
   * source's); a denial books nothing.
   */
  enter(source: string, estTokens: number, caller: Caller = DEFAULT_CALLER): LeasedPermit | Denial {
    const books = this.booksOf(source);
    assertNonNegativeInteger(estTokens, 'estTokens');
    const now = this.now();
    const { leases } = this;
    leases.reclaimExpired(now);
    const global = leases.global;
    const tenant = this.tenants && this.tenantBooks(caller.tenantId, now);
    const key = caller.key && this.keyBooks(caller.key, now);
    const isBatch = caller.priority === 'batch';
    const batch = isBatch ? this.batch : undefined;
    const sourceBatch = isBatch ? this.sourceBatch.get(source) : undefined;
    const denial =
      books.denial('source', estTokens, now) ??
      global.denial('global', estTokens, now) ??
      tenant?.denial('tenant', estTokens, now) ??
      key?.denial('key', estTokens, now) ??
      batch?.denial('batch', estTokens, now) ??
      sourceBatch?.denial('batch', estTokens, now);
    if (denial !== undefined) return denial;
    const permit = new LeasedPermit(source, estTokens, books, leases, now, books.charge(estTokens, now), global.charge(estTokens, now));
    if (tenant || key || batch || sourceBatch) {
      permit.also = [];
      for (const held of [tenant, key, batch, sourceBatch]) if (held) permit.also.push([held, held.charge(estTokens, now)]);
    }
    leases.append(permit);
    return permit;
  }

  /** A tenant's use of the scope against its bound. */
  tenantUse(tenantId: string): TenantUse {
    const now = this.now();
    this.leases.reclaimExpired(now);
    const share = tenantShareOf(this.tenantPolicy, tenantId);
    const books = this.tenants?.get(tenantId);
    const used = books?.stats(now) ?? { inflight: 0, rpmUsed: 0, tpmUsed: 0 };
    return {
      tenantId,
      rpm: { used: used.rpmUsed, bound: share.rpm },
      tpm: { used: used.tpmUsed, bound: share.tpm },
      concurrency: { used: used.inflight, bound: share.maxConcurrency },
      weight: share.weight,
    };
  }

  /** A key's use of the scope: what its books hold now (nothing when it never called). */
  keyUse(keyId: string): SourceStats {
    const now = this.now();
    this.leases.reclaimExpired(now);
    return this.keys.get(keyId)?.stats(now) ?? { inflight: 0, rpmUsed: 0, tpmUsed: 0 };
  }

  /** A key's books, bounded as its record says now: a changed bound applies from this call on. */
  private keyBooks({ id, rpm, tpm, maxConcurrency }: KeyBounds, now: number): Books {
    let books = this.keys.get(id);
    if (books === undefined) {
      dropIdle(this.keys, now);
      books = new Books({ rpm, tpm, maxConcurrency }, true, true);
      this.keys.set(id, books);
    } else if (books.limits.rpm !== rpm || books.limits.tpm !== tpm || books.limits.maxConcurrency !== maxConcurrency) {
      books.limits = { rpm, tpm, maxConcurrency };
    }
    return books;
  }

  private tenantBooks(tenantId: string, now: number): Books {
    const tenants = this.tenants!;
    let books = tenants.get(tenantId);
    if (books === undefined) {
      dropIdle(tenants, now);
      const { rpm, tpm, maxConcurrency } = tenantShareOf(this.tenantPolicy, tenantId);
      // A tenant's usage is read through `tenantUse`, so its books count even where it has no bound.
      books = new Books({ rpm, tpm, maxConcurrency }, true);
      tenants.set(tenantId, books);
    }
    return books;
  }

  sourceStats(source: string): SourceStats {
    const books = this.booksOf(source);
    const now = this.now();
    this.leases.reclaimExpired(now);
    return books.stats(now);
  }

  private booksOf(source: string): Books {
    const books = this.sources.get(source);
    if (books === undefined) throw new SourceNotConfiguredError({ scope: this.scope, sourceName: source });
    return books;
  }
}

/** The permits in flight, oldest first, as a list threaded through the permits themselves (no map, no lease object). */
class Leases {
  private oldest: LeasedPermit | undefined;
  private newest: LeasedPermit | undefined;

  constructor(
    readonly global: Books,
    readonly ttlMs: number,
  ) {}

  append(permit: LeasedPermit): void {
    permit.older = this.newest;
    if (this.newest === undefined) this.oldest = permit;
    else this.newest.newer = permit;
    this.newest = permit;
  }

  /** Frees the permit's slots and unlinks it: the first time only (a release, or its lease expiring). */
  end(permit: LeasedPermit): void {
    if (!permit.holding) return;
    permit.holding = false;
    permit.books.inflight -= 1;
    this.global.inflight -= 1;
    if (permit.also) for (const [books] of permit.also) books.inflight -= 1;
    const { older, newer } = permit;
    if (older === undefined) this.oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.newest = older;
    else newer.older = older;
    permit.older = permit.newer = undefined;
  }

  reclaimExpired(now: number): void {
    while (this.oldest !== undefined && this.oldest.grantedAt + this.ttlMs <= now) this.end(this.oldest);
  }
}

class LeasedPermit implements Permit {
  /** Links of the lease list while the permit holds its slots. */
  older: LeasedPermit | undefined = undefined;
  newer: LeasedPermit | undefined = undefined;
  holding = true;
  /** The tenant's, the key's and the batch class's books it was charged to, with where (none for most permits). */
  also: [Books, number][] | undefined = undefined;
  private settled = false;

  constructor(
    readonly source: string,
    readonly estTokens: number,
    readonly books: Books,
    private readonly leases: Leases,
    readonly grantedAt: number,
    private readonly sourceMark: number,
    private readonly globalMark: number,
  ) {}

  /** Applies `actual − est` where the reservation was booked, the first time only. */
  settle(actualTokens: number): void {
    assertNonNegativeInteger(actualTokens, 'actualTokens');
    if (this.settled) return;
    this.settled = true;
    this.books.recharge(this.sourceMark, this.estTokens, actualTokens);
    this.leases.global.recharge(this.globalMark, this.estTokens, actualTokens);
    if (this.also) for (const [books, mark] of this.also) books.recharge(mark, this.estTokens, actualTokens);
  }

  release(): void {
    this.leases.end(this);
  }

  settleAndRelease(actualTokens: number): void {
    try {
      this.settle(actualTokens);
    } finally {
      this.release();
    }
  }
}

/** Past MAX_TENANT_BOOKS, drops the idle books (made again on their owner's next call). */
function dropIdle(all: Map<string, Books>, now: number): void {
  if (all.size >= MAX_TENANT_BOOKS) for (const [id, books] of all) if (books.idle(now)) all.delete(id);
}

function openBooks(limits: SourceLimits, origin: string, reportsUsage: boolean): Books {
  for (const key of ['rpm', 'tpm', 'maxConcurrency'] as const) assertNonNegativeInteger(limits[key], `${origin}.${key}`);
  return new Books({ ...limits }, reportsUsage);
}

function deny(gate: AdmissionGate, retryAfterMs: number): Denial {
  return { ok: false, gate, retryAfterMs };
}
