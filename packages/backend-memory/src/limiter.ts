import { SourceNotConfiguredError, assertNonNegativeInteger, assertPositiveMs } from '@pgw/core';
import type { Admission, Clock, GlobalLimits, LimitGate, Limiter, Permit, SourceLimits, SourceStats } from '@pgw/core';
import { SlidingWindow, type WindowEntry } from './sliding-window.js';

/** RPM and TPM windows slide over one minute. */
export const LIMIT_WINDOW_MS = 60_000;

/**
 * Retry hint of a full concurrency gate. A slot frees when some holder releases, which no clock
 * predicts, so the caller is told to look again soon.
 */
export const CONCURRENCY_POLL_MS = 250;

export interface InMemoryLimiterOptions {
  scope: string;
  sources: Record<string, SourceLimits>;
  global: GlobalLimits;
  /** A permit never released is reclaimed this long after it was granted. */
  leaseTtlMs: number;
  now?: Clock;
}

/** The accounts of one gate triple (a source's, or the scope's). */
interface Books {
  readonly limits: SourceLimits;
  readonly window: SlidingWindow;
  inflight: number;
}

interface Lease {
  readonly books: Books;
  readonly expiresAt: number;
}

interface Charge {
  readonly window: SlidingWindow;
  readonly entry: WindowEntry;
}

/**
 * The six gates of docs/architecture.md#admission-the-six-gates for one process. Every operation is O(1) amortised: windows are
 * deques with running sums, and leases sit in a map whose insertion order is their expiry order,
 * so expired ones are reclaimed from its front, lazily, by whichever operation comes next.
 */
export class InMemoryLimiter implements Limiter {
  private readonly scope: string;
  private readonly now: Clock;
  private readonly leaseTtlMs: number;
  private readonly sources = new Map<string, Books>();
  private readonly global: Books;
  private readonly leases = new Map<number, Lease>();
  private nextLeaseId = 0;

  constructor(options: InMemoryLimiterOptions) {
    assertPositiveMs(options.leaseTtlMs, 'leaseTtlMs');
    this.scope = options.scope;
    this.now = options.now ?? Date.now;
    this.leaseTtlMs = options.leaseTtlMs;
    this.global = openBooks(options.global, 'global');
    for (const [name, limits] of Object.entries(options.sources)) {
      this.sources.set(name, openBooks(limits, `sources.${name}`));
    }
  }

  async tryEnter(source: string, estTokens: number): Promise<Admission> {
    const books = this.booksOf(source);
    assertNonNegativeInteger(estTokens, 'estTokens');
    const now = this.now();
    this.reclaimExpiredLeases(now);
    const denial = denialOf(books, 'source', estTokens, now) ?? denialOf(this.global, 'global', estTokens, now);
    if (denial !== undefined) return denial;

    const charges: Charge[] = [
      { window: books.window, entry: books.window.add(now, estTokens) },
      { window: this.global.window, entry: this.global.window.add(now, estTokens) },
    ];
    const leaseId = this.nextLeaseId++;
    this.leases.set(leaseId, { books, expiresAt: now + this.leaseTtlMs });
    books.inflight += 1;
    this.global.inflight += 1;
    return { ok: true, permit: new LeasedPermit(source, estTokens, charges, () => this.endLease(leaseId)) };
  }

  async sourceStats(source: string): Promise<SourceStats> {
    const books = this.booksOf(source);
    const now = this.now();
    this.reclaimExpiredLeases(now);
    books.window.evict(now);
    return { inflight: books.inflight, rpmUsed: books.window.count, tpmUsed: books.window.weight };
  }

  private booksOf(source: string): Books {
    const books = this.sources.get(source);
    if (books === undefined) throw new SourceNotConfiguredError({ scope: this.scope, sourceName: source });
    return books;
  }

  private endLease(leaseId: number): void {
    const lease = this.leases.get(leaseId);
    if (lease === undefined) return;
    this.leases.delete(leaseId);
    lease.books.inflight -= 1;
    this.global.inflight -= 1;
  }

  private reclaimExpiredLeases(now: number): void {
    for (const [leaseId, lease] of this.leases) {
      if (lease.expiresAt > now) break;
      this.endLease(leaseId);
    }
  }
}

class LeasedPermit implements Permit {
  private settled = false;

  constructor(
    readonly source: string,
    readonly estTokens: number,
    private readonly charges: readonly Charge[],
    private readonly endLease: () => void,
  ) {}

  async settle(actualTokens: number): Promise<void> {
    this.reweigh(actualTokens);
  }

  async release(): Promise<void> {
    this.endLease();
  }

  async settleAndRelease(actualTokens: number): Promise<void> {
    try {
      this.reweigh(actualTokens);
    } finally {
      this.endLease();
    }
  }

  /**
   * Re-weighs the reservation's own window entries to `actualTokens` (= est + delta), the first time
   * only. An entry that already left its window keeps out of the sums, so a late settle neither
   * refunds into nor charges the current window, and no sum can go below 0.
   */
  private reweigh(actualTokens: number): void {
    assertNonNegativeInteger(actualTokens, 'actualTokens');
    if (this.settled) return;
    this.settled = true;
    for (const { window, entry } of this.charges) window.reweigh(entry, actualTokens);
  }
}

function openBooks(limits: SourceLimits, origin: string): Books {
  for (const key of ['rpm', 'tpm', 'maxConcurrency'] as const) assertNonNegativeInteger(limits[key], `${origin}.${key}`);
  return { limits: { ...limits }, window: new SlidingWindow(LIMIT_WINDOW_MS), inflight: 0 };
}

/**
 * The first of a triple's gates (RPM, TPM, concurrency; 0 = unlimited) that would be exceeded.
 * An estimate larger than the whole TPM limit is admitted when the window holds no tokens,
 * otherwise it could never run.
 */
function denialOf(books: Books, level: 'source' | 'global', estTokens: number, now: number): Admission | undefined {
  const { limits, window } = books;
  window.evict(now);
  if (limits.rpm > 0 && window.count >= limits.rpm) return deny(`${level}_rpm`, window.msUntilOldestLeaves(now));
  if (limits.tpm > 0 && window.weight > 0 && window.weight + estTokens > limits.tpm) {
    return deny(`${level}_tpm`, window.msUntilOldestLeaves(now));
  }
  if (limits.maxConcurrency > 0 && books.inflight >= limits.maxConcurrency) {
    return deny(`${level}_concurrency`, CONCURRENCY_POLL_MS);
  }
  return undefined;
}

function deny(gate: LimitGate, retryAfterMs: number): Admission {
  return { ok: false, gate, retryAfterMs };
}
