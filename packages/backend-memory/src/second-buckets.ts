/**
 * Samples of the last `spanMs` counted per second of their time, with a running count and weight
 * sum, in memory that does not grow with the rate: the bucket of second s counts while
 * `now < s × 1000 + spanMs`, so a sample leaves its window up to 1 s early, never late — what the
 * Redis breaker's per-second buckets do. Used where no limit reads the window (a breaker's samples, an
 * unlimited source's usage), never for a gate that admits or denies by it.
 */
export class SecondBuckets {
  private readonly counts: Float64Array;
  private readonly weights: Float64Array;
  /** Buckets `first..last` (seconds) are live; `last < first` when there are none. */
  private first = 0;
  private last = -1;
  private countSum = 0;
  private weightSum = 0;

  constructor(private readonly spanMs: number) {
    // Seconds live at once: those s with now - spanMs < s × 1000 ≤ now.
    const slots = Math.ceil(spanMs / 1_000) + 1;
    this.counts = new Float64Array(slots);
    this.weights = new Float64Array(slots);
  }

  /** Adds a sample at `now`; returns its bucket, for `reweigh`. */
  add(now: number, weight: number): number {
    this.evict(now);
    // A clock that went back charges the oldest live bucket: over-counting, never under-counting.
    const second = Math.max(Math.floor(now / 1_000), this.first);
    if (second > this.last) {
      for (let s = Math.max(this.last + 1, this.first); s <= second; s++) this.zero(s);
      this.last = second;
    }
    const slot = second % this.counts.length;
    this.counts[slot]! += 1;
    this.weights[slot]! += weight;
    this.countSum += 1;
    this.weightSum += weight;
    return second;
  }

  /** Adds `delta` to the weight of bucket `second` while it is live; a bucket that left is not touched. */
  reweigh(second: number, delta: number): void {
    if (second < this.first || second > this.last) return;
    this.weights[second % this.weights.length]! += delta;
    this.weightSum += delta;
  }

  evict(now: number): void {
    const lastOut = Math.floor((now - this.spanMs) / 1_000);
    if (lastOut < this.first) return;
    for (let s = this.first, end = Math.min(lastOut, this.last); s <= end; s++) {
      const slot = s % this.counts.length;
      this.countSum -= this.counts[slot]!;
      this.weightSum -= this.weights[slot]!;
    }
    this.first = lastOut + 1;
    if (this.last < this.first) {
      this.last = this.first - 1;
      this.countSum = 0;
      this.weightSum = 0;
    }
  }

  clear(): void {
    this.evict(Number.MAX_SAFE_INTEGER);
  }

  get count(): number {
    return this.countSum;
  }

  get weight(): number {
    return this.weightSum;
  }

  private zero(second: number): void {
    const slot = second % this.counts.length;
    this.counts[slot] = 0;
    this.weights[slot] = 0;
  }
}
