import { SourceNotConfiguredError } from '@pgw/core';
import { assertNonNegativeInteger, assertPositiveMs } from '@pgw/core/internal';
import type { LimitAdmission, Clock, GlobalLimits, LimitGate, Limiter, Permit, SourceLimits, SourceStats } from '@pgw/core';
import { SecondBuckets } from './second-buckets.js';
import { SlidingWindow } from './sliding-window.js';

/** RPM and TPM windows slide over one minute. */
export const LIMIT_WINDOW_MS = 60_000;

/**
 * Retry hint of a full concurrency gate. A slot frees when some holder releases, which no clock
 * predicts, so the caller is told to look again soon.
 */
export const CONCURRENCY_POLL_MS = 250;

type Denial = Extract<LimitAdmission, { ok: false }>;

/** Where a permit's reservation sits in one level's books: a window entry or a bucket; none when nothing is kept. */
const NOT_CHARGED = -1;

export interface InMemoryLimiterOptions {
  scope: string;
  sources: Record<string, SourceLimits>;
  global: GlobalLimits;
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

  constructor(
    readonly limits: SourceLimits,
    reportsUsage: boolean,
  ) {
    const limited = limits.rpm > 0 || limits.tpm > 0;
    this.window = limited ? new SlidingWindow(LIMIT_WINDOW_MS) : undefined;
    this.usage = !limited && reportsUsage ? new SecondBuckets(LIMIT_WINDOW_MS) : undefined;
  }

  /**
   * The first of the triple's gates (RPM, TPM, concurrency; 0 = unlimited) that would be exceeded.
   * An estimate larger than the whole TPM limit is admitted when the window holds no tokens,
   * otherwise it could never run.
   */
  denial(level: 'source' | 'global', estTokens: number, now: number): Denial | undefined {
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

  constructor(options: InMemoryLimiterOptions) {
    assertPositiveMs(options.leaseTtlMs, 'leaseTtlMs');
    this.scope = options.scope;
    this.now = options.now ?? Date.now;
    this.leases = new Leases(openBooks(options.global, 'global', false), options.leaseTtlMs);
    for (const [name, limits] of Object.entries(options.sources)) {
      this.sources.set(name, openBooks(limits, `sources.${name}`, true));
    }
  }

  tryEnter(source: string, estTokens: number): LimitAdmission {
    const entered = this.enter(source, estTokens);
    return entered instanceof LeasedPermit ? { ok: true, permit: entered } : entered;
  }

  /** `tryEnter` without the admission's wrapper: the permit, or the denial. */
  enter(source: string, estTokens: number): LeasedPermit | Denial {
    const books = this.booksOf(source);
    assertNonNegativeInteger(estTokens, 'estTokens');
    const now = this.now();
    const { leases } = this;
    leases.reclaimExpired(now);
    const global = leases.global;
    const denial = books.denial('source', estTokens, now) ?? global.denial('global', estTokens, now);
    if (denial !== undefined) return denial;
    const permit = new LeasedPermit(source, estTokens, books, leases, now, books.charge(estTokens, now), global.charge(estTokens, now));
    leases.append(permit);
    return permit;
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

function openBooks(limits: SourceLimits, origin: string, reportsUsage: boolean): Books {
  for (const key of ['rpm', 'tpm', 'maxConcurrency'] as const) assertNonNegativeInteger(limits[key], `${origin}.${key}`);
  return new Books({ ...limits }, reportsUsage);
}

function deny(gate: LimitGate, retryAfterMs: number): Denial {
  return { ok: false, gate, retryAfterMs };
}
