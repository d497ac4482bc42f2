import { describe, expect, it } from 'vitest';
import { formatRate, formatRatio, interleave, median, percentile, ratio, runConcurrent, type Contender } from '../src/harness.js';

describe('median', () => {
  it('takes the middle value of an odd count and the mean of the two middle values of an even count', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('is NaN for no values and does not reorder its input', () => {
    expect(median([])).toBeNaN();
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('percentile', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose

  it('uses the nearest rank: always a measured value', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile([10, 20, 30], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 75)).toBe(30);
  });

  it('is NaN for no values and rejects p outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('ratio', () => {
  it('divides by the baseline', () => {
    expect(ratio(850, 1000)).toBeCloseTo(0.85);
    expect(ratio(2000, 1000)).toBe(2);
  });

  it('is NaN when the baseline is zero, negative or not finite, or the value not finite', () => {
    expect(ratio(1, 0)).toBeNaN();
    expect(ratio(1, -5)).toBeNaN();
    expect(ratio(1, Number.NaN)).toBeNaN();
    expect(ratio(Number.POSITIVE_INFINITY, 1)).toBeNaN();
  });

  it('formats for tables', () => {
    expect(formatRatio(0.8549)).toBe('0.85');
    expect(formatRatio(Number.NaN)).toBe('n/a');
    expect(formatRate(12_345)).toBe('12,300');
    expect(formatRate(1.2345)).toBe('1.23');
  });
});

describe('interleave', () => {
  it('discards one warm-up round, rotates the start position, and reports a rate per measured round', async () => {
    const order: string[] = [];
    const warmUps: boolean[] = [];
    const contender = (name: string): Contender => ({
      name,
      async round({ warmUp }) {
        order.push(name);
        warmUps.push(warmUp);
        return 10;
      },
    });
    let between = 0;
    const results = await interleave([contender('a'), contender('b'), contender('c')], {
      rounds: 3,
      between: async () => {
        between++;
      },
    });
    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'b', 'c', 'a', 'c', 'a', 'b']);
    expect(warmUps.slice(0, 3)).toEqual([true, true, true]);
    expect(warmUps.slice(3).every((w) => !w)).toBe(true);
    expect(between).toBe(12);
    expect(results.map((r) => r.name)).toEqual(['a', 'b', 'c']);
    for (const result of results) {
      expect(result.rates).toHaveLength(3);
      expect(result.median).toBeGreaterThan(0);
      expect(result.cpuUs).toHaveLength(3);
    }
  });

  it('charges each round the CPU this process spent in it, per operation', async () => {
    const busy: Contender = {
      name: 'busy',
      async round() {
        // Spins until this process has used 20 ms of CPU, however busy the machine is.
        const before = process.cpuUsage();
        for (;;) {
          const used = process.cpuUsage(before);
          if (used.user + used.system >= 20_000) return 4;
        }
      },
    };
    const [result] = await interleave([busy], { rounds: 2 });
    // 20 ms of CPU over 4 operations: at least 5,000 µs each.
    expect(result!.medianCpuUs).toBeGreaterThanOrEqual(5_000);
  });

  it('rejects a round count below 1', async () => {
    await expect(interleave([], { rounds: 0 })).rejects.toThrow(RangeError);
  });
});

describe('runConcurrent', () => {
  it('keeps starting calls past `count` until `minMs` have passed', async () => {
    let calls = 0;
    const started = performance.now();
    const done = await runConcurrent(1, 1, () => new Promise((resolve) => setTimeout(() => resolve(calls++), 5)), undefined, 50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
    expect(done).toBe(calls);
    expect(done).toBeGreaterThan(1);
  });

  it('runs every call once with at most `concurrency` in flight and records each latency', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    const latencies: number[] = [];
    const done = await runConcurrent(
      20,
      4,
      async (i) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        seen.push(i);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
      },
      latencies,
    );
    expect(done).toBe(20);
    expect(peak).toBe(4);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(latencies).toHaveLength(20);
    expect(latencies.every((ms) => ms >= 0)).toBe(true);
  });

  it('rejects when a call does', async () => {
    await expect(runConcurrent(3, 2, async (i) => (i === 1 ? Promise.reject(new Error('boom')) : undefined))).rejects.toThrow('boom');
  });
});
