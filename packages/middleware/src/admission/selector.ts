import type { Clock, Governor, SelectorKind, Source, SourceStats } from '@pgw/core';
import type { HealthBook } from './health.js';

/** One admission round's preference order, produced lazily: each `next()` is the next source, undefined once all were given. */
export interface SourceWalk {
  next(): Source | undefined;
}

/**
 * Orders the scope's sources for an admission round. A walk gives every source (admission filters),
 * the first in O(1) or O(log n); the rest is computed only when the first refuses. The retry loop
 * tells the selector what it does with a source, so a load-aware ranking stays right between two
 * reads of the governor's stats.
 */
export interface Selector {
  walk(): SourceWalk;
  /** This process asks `source` for admission now: counted in flight until the handle is settled. */
  entering(source: Source, estTokens: number): SelectorEntry;
}

/** One admission try on a source, settled exactly once (a second settle is ignored). */
export interface SelectorEntry {
  /** The source refused (or admission failed): the try is handed back. */
  refused(): void;
  /** The admitted attempt ended and gave its lease back. */
  left(): void;
}

export interface SelectorDeps {
  sources: readonly Source[];
  governor: Pick<Governor, 'sourceStats'>;
  health: HealthBook;
  rng: () => number;
  now: Clock;
  /** health_aware: least time between two reads of the sources' stats (default 500 ms). */
  statsEveryMs?: number;
  /** health_aware: a failed stats read; the ranking keeps the figures it had. */
  onStatsError?: (error: unknown) => void;
}

export const DEFAULT_STATS_EVERY_MS = 500;

/** Latency at which the health_aware latency factor halves. */
const LATENCY_SCALE_MS = 1000;

export function createSelector(kind: SelectorKind, deps: SelectorDeps): Selector {
  const sources = [...deps.sources];
  switch (kind) {
    case 'ordered':
      return new RotatingSelector(sources, false);
    case 'round_robin':
      return new RotatingSelector(sources, true);
    case 'weighted':
      return new WeightedSelector(sources, deps.rng);
    case 'health_aware':
      // One source has one order: reading its stats (a store round trip with Redis) would change nothing.
      return sources.length === 1 ? new RotatingSelector(sources, false) : new HealthRanking(sources, deps);
  }
}

/** Success EWMA × latency factor × headroom left under the source's own gates. */
export function healthScore(source: Source, stats: SourceStats, health: HealthBook): number {
  const latency = health.latencyMs(source.name);
  const latencyFactor = latency === undefined ? 1 : 1 / (1 + latency / LATENCY_SCALE_MS);
  return health.successRate(source.name) * latencyFactor * headroom(source, stats);
}

/** The tightest remaining fraction of the source's concurrency, RPM and TPM (1 when unlimited). */
export function headroom(source: Source, stats: SourceStats): number {
  const room = Math.min(
    remaining(stats.inflight, source.maxConcurrency),
    remaining(stats.rpmUsed, source.rpm),
    remaining(stats.tpmUsed, source.tpm),
  );
  return Math.max(0, room);
}

function remaining(used: number, limit: number): number {
  return limit > 0 ? 1 - used / limit : 1;
}

/**
 * Within one logical call, sources that failed go behind the others (fail over first), least
 * recently failed first; a failed source comes back only when nothing else is eligible.
 */
export function deprioritiseFailed(order: SourceWalk, failedByRecency: readonly Source[]): SourceWalk {
  return failedByRecency.length === 0 ? order : new FailedLast(order, failedByRecency);
}

/** Only the sources whose declared context window is larger than `window`. */
export function largerWindows(order: SourceWalk, window: number): SourceWalk {
  return {
    next() {
      for (let source = order.next(); source !== undefined; source = order.next()) {
        if (source.contextWindow !== undefined && source.contextWindow > window) return source;
      }
      return undefined;
    },
  };
}

class FailedLast implements SourceWalk {
  private failedGiven = 0;

  constructor(
    private readonly order: SourceWalk,
    private readonly failed: readonly Source[],
  ) {}

  next(): Source | undefined {
    for (let source = this.order.next(); source !== undefined; source = this.order.next()) {
      if (!this.failed.includes(source)) return source;
    }
    return this.failed[this.failedGiven++];
  }
}

const UNCOUNTED: SelectorEntry = Object.freeze({ refused() {}, left() {} });

/** Stateless selectors: nothing to learn from admissions. */
abstract class LoadBlindSelector implements Selector {
  abstract walk(): SourceWalk;
  entering(): SelectorEntry {
    return UNCOUNTED;
  }
}

/** `ordered` (always from the first) or `round_robin` (from the next source per walk), without copying the sources. */
class RotatingSelector extends LoadBlindSelector {
  private nextStart = 0;

  constructor(
    private readonly sources: readonly Source[],
    private readonly rotate: boolean,
  ) {
    super();
  }

  walk(): SourceWalk {
    const start = this.nextStart;
    if (this.rotate) this.nextStart = (start + 1) % this.sources.length;
    return new RotatingWalk(this.sources, start);
  }
}

class RotatingWalk implements SourceWalk {
  private given = 0;

  constructor(
    private readonly sources: readonly Source[],
    private readonly start: number,
  ) {}

  next(): Source | undefined {
    const { sources } = this;
    if (this.given >= sources.length) return undefined;
    const index = (this.start + this.given++) % sources.length;
    return sources[index];
  }
}

/** A selector whose first pick is cheap and whose full order is computed only when the first refuses. */
interface FirstThenRest {
  first(): Source;
  /** Every source but `first`, in preference order. */
  rest(first: Source): Source[];
}

class FirstThenRestWalk implements SourceWalk {
  private head: Source | undefined;
  private tail: Source[] | undefined;
  private given = 0;

  constructor(private readonly selector: FirstThenRest) {}

  next(): Source | undefined {
    if (this.head === undefined) return (this.head = this.selector.first());
    this.tail ??= this.selector.rest(this.head);
    return this.tail[this.given++];
  }
}

/**
 * Weighted random order without replacement: the first pick by binary search over the cumulative
 * weights (probability weight / total), the rest by Efraimidis–Spirakis keys; weight ≤ 0 goes last.
 */
class WeightedSelector extends LoadBlindSelector implements FirstThenRest {
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(
    private readonly sources: readonly Source[],
    private readonly rng: () => number,
  ) {
    super();
    let sum = 0;
    for (const source of sources) this.cumulative.push((sum += Math.max(0, source.weight)));
    this.total = sum;
  }

  walk(): SourceWalk {
    return new FirstThenRestWalk(this);
  }

  first(): Source {
    // Nothing weighs anything: all sort last, in the configured order.
    if (this.total === 0) return this.sources[0]!;
    const target = this.rng() * this.total;
    const { cumulative } = this;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (cumulative[mid]! > target) high = mid;
      else low = mid + 1;
    }
    return this.sources[low]!;
  }

  rest(first: Source): Source[] {
    const others = this.sources.filter((source) => source !== first);
    const keys = others.map((source) => (source.weight > 0 ? this.rng() ** (1 / source.weight) : -1));
    return byScore(others, keys);
  }
}

/** Descending score; the configured source order breaks ties. */
function byScore(sources: readonly Source[], scores: readonly number[]): Source[] {
  return sources
    .map((source, index) => ({ source, index, score: scores[index]! }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.source);
}

/** One source in the health_aware ranking, and the load its headroom is computed from. */
class Ranked implements SourceStats {
  /** Place in the ranking's heap. */
  position: number;
  score = 0;
  /** This process's attempts on the source, from `entering` to `refused` / `left`. */
  local = 0;
  /** In flight elsewhere at the last stats read. */
  others = 0;
  readRpm = 0;
  readTpm = 0;
  /** Requests and tokens this process entered (less the refused), ever; and as the last read went out. */
  enteredRequests = 0;
  enteredTokens = 0;
  requestsAtRead = 0;
  tokensAtRead = 0;
  /** Refused since this process last saw room freed on it: ranked as full. */
  refusedLately = false;

  constructor(
    readonly source: Source,
    readonly order: number,
  ) {
    this.position = order;
  }

  get inflight(): number {
    return this.others + this.local;
  }

  get rpmUsed(): number {
    return this.readRpm + this.enteredRequests - this.requestsAtRead;
  }

  get tpmUsed(): number {
    return this.readTpm + this.enteredTokens - this.tokensAtRead;
  }
}

/** Higher score first; the configured source order breaks ties. */
function byRank(a: Ranked, b: Ranked): number {
  return b.score - a.score || a.order - b.order;
}

function outranks(a: Ranked, b: Ranked): boolean {
  return byRank(a, b) < 0;
}

/**
 * health_aware: sources in a binary max-heap by score, so the best is at the root. The limiter's
 * stats are read for all sources at most once per `statsEveryMs`, in the background (a walk never
 * waits for it); between reads this process corrects the load it knows of (its own attempts
 * entering and leaving, its refusals) and the HealthBook's changes, each re-positioning one source
 * in O(log n).
 */
class HealthRanking implements Selector, FirstThenRest {
  private readonly heap: Ranked[];
  private readonly byName = new Map<string, Ranked>();
  private readonly statsEveryMs: number;
  private lastRead = Number.NEGATIVE_INFINITY;
  private reading = false;

  constructor(
    sources: readonly Source[],
    private readonly deps: SelectorDeps,
  ) {
    this.statsEveryMs = deps.statsEveryMs ?? DEFAULT_STATS_EVERY_MS;
    this.heap = sources.map((source, order) => new Ranked(source, order));
    for (const entry of this.heap) {
      this.byName.set(entry.source.name, entry);
      entry.score = this.scoreOf(entry);
    }
    // A sorted array is a heap.
    this.heap.sort(byRank);
    this.heap.forEach((entry, position) => (entry.position = position));
    deps.health.watch((name) => {
      const entry = this.byName.get(name);
      if (entry) this.reposition(entry);
    });
  }

  walk(): SourceWalk {
    if (!this.reading && this.deps.now() - this.lastRead >= this.statsEveryMs) void this.readStats();
    return new FirstThenRestWalk(this);
  }

  first(): Source {
    return this.heap[0]!.source;
  }

  rest(first: Source): Source[] {
    return this.heap
      .filter((entry) => entry.source !== first)
      .sort(byRank)
      .map((entry) => entry.source);
  }

  entering(source: Source, estTokens: number): SelectorEntry {
    const entry = this.entry(source);
    entry.local += 1;
    entry.enteredRequests += 1;
    entry.enteredTokens += estTokens;
    this.reposition(entry);
    return new Counted(this, source, estTokens);
  }

  refused(source: Source, estTokens: number): void {
    const entry = this.entry(source);
    entry.local -= 1;
    entry.enteredRequests -= 1;
    entry.enteredTokens -= estTokens;
    entry.refusedLately = true;
    this.reposition(entry);
  }

  left(source: Source): void {
    const entry = this.entry(source);
    entry.local -= 1;
    entry.refusedLately = false;
    this.reposition(entry);
  }

  private entry(source: Source): Ranked {
    return this.byName.get(source.name)!;
  }

  /** One pass over every source's stats; at most one in flight. */
  private async readStats(): Promise<void> {
    this.reading = true;
    this.lastRead = this.deps.now();
    // A copy: the heap reorders while the read is out.
    const read = [...this.heap];
    // What this process entered before the read went out is in the figures; what it enters meanwhile is not.
    const marks = read.map((entry) => [entry.enteredRequests, entry.enteredTokens] as const);
    try {
      const stats = await Promise.all(read.map((entry) => this.deps.governor.sourceStats(entry.source.name)));
      read.forEach((entry, i) => {
        const figures = stats[i]!;
        entry.others = Math.max(0, figures.inflight - entry.local);
        entry.readRpm = figures.rpmUsed;
        entry.readTpm = figures.tpmUsed;
        [entry.requestsAtRead, entry.tokensAtRead] = marks[i]!;
        entry.refusedLately = false;
      });
      for (const entry of read) this.reposition(entry);
    } catch (error) {
      this.deps.onStatsError?.(error);
    } finally {
      this.reading = false;
    }
  }

  private scoreOf(entry: Ranked): number {
    return entry.refusedLately ? 0 : healthScore(entry.source, entry, this.deps.health);
  }

  private reposition(entry: Ranked): void {
    const score = this.scoreOf(entry);
    if (score === entry.score) return;
    const rose = score > entry.score;
    entry.score = score;
    if (rose) this.siftUp(entry);
    else this.siftDown(entry);
  }

  private siftUp(entry: Ranked): void {
    const { heap } = this;
    let position = entry.position;
    while (position > 0) {
      const parentAt = (position - 1) >> 1;
      const parent = heap[parentAt]!;
      if (!outranks(entry, parent)) break;
      this.place(parent, position);
      position = parentAt;
    }
    this.place(entry, position);
  }

  private siftDown(entry: Ranked): void {
    const { heap } = this;
    let position = entry.position;
    for (;;) {
      const leftAt = 2 * position + 1;
      if (leftAt >= heap.length) break;
      const rightAt = leftAt + 1;
      const childAt = rightAt < heap.length && outranks(heap[rightAt]!, heap[leftAt]!) ? rightAt : leftAt;
      const child = heap[childAt]!;
      if (!outranks(child, entry)) break;
      this.place(child, position);
      position = childAt;
    }
    this.place(entry, position);
  }

  private place(entry: Ranked, position: number): void {
    this.heap[position] = entry;
    entry.position = position;
  }
}

/** A health_aware try: settles the ranking's count once. */
class Counted implements SelectorEntry {
  private settled = false;

  constructor(
    private readonly ranking: HealthRanking,
    private readonly source: Source,
    private readonly estTokens: number,
  ) {}

  refused(): void {
    if (this.settled) return;
    this.settled = true;
    this.ranking.refused(this.source, this.estTokens);
  }

  left(): void {
    if (this.settled) return;
    this.settled = true;
    this.ranking.left(this.source);
  }
}
