import { describe, expect, it } from 'vitest';
import { gatherBounded } from '../src/index.js';

/** A task whose completion the test controls. */
function latch<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('gatherBounded', () => {
  it('keeps input order whatever the completion order', async () => {
    const latches = [latch<string>(), latch<string>(), latch<string>()];
    const result = gatherBounded(
      latches.map((g) => () => g.promise),
      { concurrency: 3 },
    );
    latches[2]!.resolve('c');
    latches[0]!.resolve('a');
    latches[1]!.resolve('b');
    expect(await result).toEqual(['a', 'b', 'c']);
  });

  it('never runs more than `concurrency` tasks, and starts a task only when a slot frees', async () => {
    const latches = Array.from({ length: 5 }, () => latch<number>());
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const tasks = latches.map((g, i) => async () => {
      started.push(i);
      running += 1;
      peak = Math.max(peak, running);
      try {
        return await g.promise;
      } finally {
        running -= 1;
      }
    });
    const result = gatherBounded(tasks, { concurrency: 2 });
    await flush();
    expect(started).toEqual([0, 1]);
    latches[1]!.resolve(1);
    await flush();
    expect(started).toEqual([0, 1, 2]);
    latches.forEach((g, i) => g.resolve(i));
    expect(await result).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('pulls thunks from a lazy iterable one at a time', async () => {
    const pulled: number[] = [];
    function* lazy() {
      for (let i = 0; i < 4; i += 1) {
        pulled.push(i);
        yield () => Promise.resolve(i * 10);
      }
    }
    expect(await gatherBounded(lazy(), { concurrency: 1 })).toEqual([0, 10, 20, 30]);
    expect(pulled).toEqual([0, 1, 2, 3]);
  });

  it('rejects with the first error and starts no further task', async () => {
    const first = latch<number>();
    const started: number[] = [];
    const boom = new Error('boom');
    const tasks = [0, 1, 2, 3].map((i) => async () => {
      started.push(i);
      if (i === 1) throw boom;
      return first.promise;
    });
    await expect(gatherBounded(tasks, { concurrency: 2 })).rejects.toBe(boom);
    first.resolve(0);
    await flush();
    expect(started).toEqual([0, 1]);
  });

  it('a second failure after the first is not an unhandled rejection', async () => {
    const late = latch<never>();
    const tasks = [() => Promise.reject(new Error('first')), () => late.promise];
    await expect(gatherBounded(tasks, { concurrency: 2 })).rejects.toThrow('first');
    late.reject(new Error('second'));
    await flush();
  });

  it('returns [] for no tasks, and validates its arguments', async () => {
    expect(await gatherBounded([], { concurrency: 4 })).toEqual([]);
    for (const concurrency of [0, -1, 1.5, Number.NaN, Infinity]) {
      await expect(gatherBounded([], { concurrency })).rejects.toThrow(RangeError);
    }
    await expect(gatherBounded([Promise.resolve(1)] as never, { concurrency: 1 })).rejects.toThrow(/gatherBounded\(tasks\[0\]\) must be a function/);
  });
});
