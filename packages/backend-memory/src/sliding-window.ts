const MIN_CAPACITY = 64;

/**
 * The exact samples of the last `spanMs`, oldest first, with a running count and weight sum: O(1)
 * amortised per operation. An entry added at `ts` counts while `now < ts + spanMs`. Entries live in
 * a ring of two typed arrays and are named by a sequence number, so a call in flight holds a number
 * instead of an object (docs/decisions.md#lean-hot-path). Time is expected
 * not to run backwards; if it does, a late-stamped entry behind a newer one merely stays a little
 * longer (over-counting, never under-counting).
 */
export class SlidingWindow {
  private stamps = new Float64Array(MIN_CAPACITY);
  private weights = new Float64Array(MIN_CAPACITY);
  /** Ring index of the oldest entry, and its sequence number. */
  private headIndex = 0;
  private headSeq = 0;
  private size = 0;
  private weightSum = 0;

  constructor(private readonly spanMs: number) {}

  /** Adds an entry; returns its sequence number, for `reweigh`. */
  add(ts: number, weight: number): number {
    if (this.size === this.stamps.length) this.resize(this.stamps.length * 2);
    const index = (this.headIndex + this.size) & (this.stamps.length - 1);
    this.stamps[index] = ts;
    this.weights[index] = weight;
    this.size += 1;
    this.weightSum += weight;
    return this.headSeq + this.size - 1;
  }

  /** Changes the weight of an entry still held; one that already left the window is not touched. */
  reweigh(seq: number, weight: number): void {
    if (seq < this.headSeq) return;
    const index = (this.headIndex + (seq - this.headSeq)) & (this.stamps.length - 1);
    this.weightSum += weight - this.weights[index]!;
    this.weights[index] = weight;
  }

  evict(now: number): void {
    const mask = this.stamps.length - 1;
    while (this.size > 0 && this.stamps[this.headIndex]! + this.spanMs <= now) {
      this.weightSum -= this.weights[this.headIndex]!;
      this.headIndex = (this.headIndex + 1) & mask;
      this.headSeq += 1;
      this.size -= 1;
    }
    // A burst's ring is given back once the window holds a quarter of it.
    if (this.stamps.length > MIN_CAPACITY && this.size * 4 <= this.stamps.length) this.resize(this.stamps.length / 2);
  }

  clear(): void {
    this.evict(Number.POSITIVE_INFINITY);
  }

  get count(): number {
    return this.size;
  }

  get weight(): number {
    return this.weightSum;
  }

  /** Milliseconds until the oldest entry leaves the window (> 0 after `evict(now)`; a whole span when empty). */
  msUntilOldestLeaves(now: number): number {
    return this.size === 0 ? this.spanMs : this.stamps[this.headIndex]! + this.spanMs - now;
  }

  /** Copies the entries, oldest first, into a ring of `capacity` (a power of two ≥ the count). */
  private resize(capacity: number): void {
    const stamps = new Float64Array(capacity);
    const weights = new Float64Array(capacity);
    const mask = this.stamps.length - 1;
    for (let i = 0; i < this.size; i++) {
      const from = (this.headIndex + i) & mask;
      stamps[i] = this.stamps[from]!;
      weights[i] = this.weights[from]!;
    }
    this.stamps = stamps;
    this.weights = weights;
    this.headIndex = 0;
  }
}
