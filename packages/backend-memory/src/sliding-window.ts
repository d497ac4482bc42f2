/** One sample of a sliding window: when it happened and what it weighs (tokens, or 1 for a failure). */
export interface WindowEntry {
  readonly ts: number;
  weight: number;
  /** Set once the entry has left the window, so a late adjustment cannot touch the running sum. */
  evicted: boolean;
}

/**
 * Samples of the last `spanMs`, oldest first, with a running count and weight sum: O(1) amortised per
 * operation. An entry added at `ts` counts while `now < ts + spanMs`. Time is expected not to run
 * backwards; if it does, a late-stamped entry behind a newer one merely stays a little longer
 * (over-counting, never under-counting).
 */
export class SlidingWindow {
  private entries: WindowEntry[] = [];
  private head = 0;
  private weightSum = 0;

  constructor(private readonly spanMs: number) {}

  add(ts: number, weight: number): WindowEntry {
    const entry: WindowEntry = { ts, weight, evicted: false };
    this.entries.push(entry);
    this.weightSum += weight;
    return entry;
  }

  /** Changes the weight of an entry still in the window; an entry that already left is not touched. */
  reweigh(entry: WindowEntry, weight: number): void {
    if (entry.evicted) return;
    this.weightSum += weight - entry.weight;
    entry.weight = weight;
  }

  evict(now: number): void {
    while (this.head < this.entries.length) {
      const oldest = this.entries[this.head]!;
      if (oldest.ts + this.spanMs > now) break;
      oldest.evicted = true;
      this.weightSum -= oldest.weight;
      this.head += 1;
    }
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  clear(): void {
    this.evict(Number.POSITIVE_INFINITY);
  }

  get count(): number {
    return this.entries.length - this.head;
  }

  get weight(): number {
    return this.weightSum;
  }

  /** Milliseconds until the oldest entry leaves the window (> 0 after `evict(now)`; a whole span when empty). */
  msUntilOldestLeaves(now: number): number {
    const oldest = this.entries[this.head];
    return oldest === undefined ? this.spanMs : oldest.ts + this.spanMs - now;
  }
}
