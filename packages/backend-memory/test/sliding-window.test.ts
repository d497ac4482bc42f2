import { describe, expect, it } from 'vitest';
import { SlidingWindow } from '../src/sliding-window.js';

describe('SlidingWindow', () => {
  it('keeps its count, weight and oldest entry right across compactions of its deque', () => {
    const window = new SlidingWindow(1_000);
    const entries = Array.from({ length: 5_000 }, (_, i) => window.add(i, 2));
    window.evict(1_000 + 2_999); // entries 0..2999 leave; the deque compacts
    expect([window.count, window.weight, window.msUntilOldestLeaves(3_999)]).toEqual([2_000, 4_000, 1]);

    window.reweigh(entries[2_999]!, 50); // already left: no effect
    window.reweigh(entries[3_000]!, 10);
    expect(window.weight).toBe(4_008);

    window.evict(1_000 + 3_000);
    expect([window.count, window.weight]).toEqual([1_999, 3_998]);
    window.evict(Number.POSITIVE_INFINITY);
    expect([window.count, window.weight]).toEqual([0, 0]);
    window.add(10_000, 7);
    expect([window.count, window.weight, window.msUntilOldestLeaves(10_400)]).toEqual([1, 7, 600]);
  });
});
