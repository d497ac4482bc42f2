import { describe, expect, it } from 'vitest';
import { SecondBuckets } from '../src/second-buckets.js';
import { SlidingWindow } from '../src/sliding-window.js';

describe('SlidingWindow', () => {
  it('keeps its count, weight and oldest entry right across growing and shrinking its ring', () => {
    const window = new SlidingWindow(1_000);
    const seqs = Array.from({ length: 5_000 }, (_, i) => window.add(i, 2));
    window.evict(1_000 + 2_999); // entries 0..2999 leave; the ring shrinks
    expect([window.count, window.weight, window.msUntilOldestLeaves(3_999)]).toEqual([2_000, 4_000, 1]);

    window.reweigh(seqs[2_999]!, 50); // already left: no effect
    window.reweigh(seqs[3_000]!, 10);
    window.reweigh(seqs[4_999]!, 0);
    expect(window.weight).toBe(4_006);

    window.evict(1_000 + 3_000);
    expect([window.count, window.weight]).toEqual([1_999, 3_996]);
    window.evict(1_000 + 4_500); // the ring shrinks below the entries' old positions
    expect([window.count, window.weight]).toEqual([499, 996]);
    window.reweigh(seqs[4_998]!, 5);
    expect(window.weight).toBe(999);
    window.evict(Number.POSITIVE_INFINITY);
    expect([window.count, window.weight]).toEqual([0, 0]);
    const next = window.add(10_000, 7);
    expect(next).toBe(5_000);
    expect([window.count, window.weight, window.msUntilOldestLeaves(10_400)]).toEqual([1, 7, 600]);
  });
});

describe('SecondBuckets', () => {
  it('a sample of second s counts while now < s × 1000 + span: up to 1 s early, never late', () => {
    const buckets = new SecondBuckets(10_000);
    buckets.add(1_500, 1);
    buckets.add(1_999, 0);
    buckets.add(2_000, 3);
    buckets.evict(10_999);
    expect([buckets.count, buckets.weight]).toEqual([3, 4]);
    buckets.evict(11_000); // second 1 leaves, 500 ms before its first sample's exact end
    expect([buckets.count, buckets.weight]).toEqual([1, 3]);
    buckets.evict(12_000);
    expect([buckets.count, buckets.weight]).toEqual([0, 0]);
  });

  it('re-weighs a live bucket only, and reuses its slots across long gaps', () => {
    const buckets = new SecondBuckets(3_000);
    const first = buckets.add(0, 10);
    const second = buckets.add(1_000, 10);
    buckets.reweigh(first, -4);
    expect(buckets.weight).toBe(16);
    buckets.add(3_000, 1); // second 0 leaves
    buckets.reweigh(first, 100);
    expect([buckets.count, buckets.weight]).toEqual([2, 11]);
    buckets.reweigh(second, 1);
    expect(buckets.weight).toBe(12);
    buckets.add(1_000_000, 2); // everything else left long ago; its slots are reused clean
    expect([buckets.count, buckets.weight]).toEqual([1, 2]);
    buckets.add(1_001_000, 2);
    buckets.add(1_002_000, 2);
    buckets.add(1_003_000, 2);
    expect([buckets.count, buckets.weight]).toEqual([3, 6]);
  });

  it('a clock that went back charges the oldest second still in the window: counted longer, never shorter', () => {
    const buckets = new SecondBuckets(2_000);
    buckets.add(10_000, 1); // seconds 9 and 10 are in the window now
    buckets.add(5_000, 1); // charged to second 9, leaving at 11 000
    expect(buckets.count).toBe(2);
    buckets.evict(10_999);
    expect(buckets.count).toBe(2);
    buckets.evict(11_000);
    expect(buckets.count).toBe(1);
    buckets.evict(12_000);
    expect(buckets.count).toBe(0);
    buckets.clear();
    expect([buckets.count, buckets.weight]).toEqual([0, 0]);
  });
});
