import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchingQueue, type BatchingQueueOptions } from '../src/telemetry-queue.js';

/** A sink whose writes the test settles by hand. */
function scriptedSink() {
  const writes: Array<{ batch: number[]; resolve: () => void; reject: (e: Error) => void }> = [];
  const write = (batch: number[]) =>
    new Promise<void>((resolve, reject) => {
      writes.push({ batch, resolve, reject });
    });
  return { writes, write };
}

function queue(options: Partial<BatchingQueueOptions<number>> & Pick<BatchingQueueOptions<number>, 'write'>) {
  const warnings: string[] = [];
  const q = new BatchingQueue<number>({
    label: 'test-store',
    warn: (m) => warnings.push(m),
    batchSize: 3,
    flushIntervalMs: 100,
    ...options,
  });
  return { q, warnings };
}

function pushRange(q: BatchingQueue<number>, from: number, to: number) {
  for (let i = from; i < to; i += 1) q.push(i);
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

describe('BatchingQueue', () => {
  it('writes a full batch at once and a partial batch after flushIntervalMs', async () => {
    const batches: number[][] = [];
    const { q } = queue({ write: async (b) => void batches.push(b) });
    pushRange(q, 0, 4);
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([[0, 1, 2]]);
    await vi.advanceTimersByTimeAsync(99);
    expect(batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[0, 1, 2], [3]]);
    expect(q.stats()).toEqual({ written: 4, dropped: 0, queued: 0 });
    expect(vi.getTimerCount()).toBe(0);
    await q.close();
  });

  it('counts the rows a partial write refused as dropped and the rest as written', async () => {
    const { q, warnings } = queue({ write: async () => ({ rejected: 1, reason: 'integer out of range' }) });
    pushRange(q, 0, 3);
    await q.flush();
    expect(q.stats()).toEqual({ written: 2, dropped: 1, queued: 0 });
    expect(warnings[0]).toContain('the store refused 1 row(s): integer out of range');
    await q.close();
  });

  it('keeps one interval timer however many rows wait', async () => {
    const { q } = queue({ write: async () => {}, batchSize: 1000 });
    pushRange(q, 0, 50);
    expect(vi.getTimerCount()).toBe(1);
    await q.close();
    expect(q.stats()).toEqual({ written: 50, dropped: 0, queued: 0 });
  });

  it('writes one batch at a time; full batches follow at once, a partial one waits for the interval', async () => {
    const sink = scriptedSink();
    const { q } = queue({ write: sink.write });
    pushRange(q, 0, 3);
    pushRange(q, 3, 8);
    expect(sink.writes.map((w) => w.batch)).toEqual([[0, 1, 2]]);
    sink.writes[0]!.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(sink.writes.map((w) => w.batch)).toEqual([[0, 1, 2], [3, 4, 5]]);
    sink.writes[1]!.resolve();
    await vi.advanceTimersByTimeAsync(99);
    expect(sink.writes).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(sink.writes[2]!.batch).toEqual([6, 7]);
    sink.writes[2]!.resolve();
    await q.close();
    expect(q.stats()).toEqual({ written: 8, dropped: 0, queued: 0 });
  });

  it('drops the newest rows when full, counts them and warns once per interval', async () => {
    const sink = scriptedSink();
    let now = 0;
    const { q, warnings } = queue({ write: sink.write, batchSize: 100, maxQueue: 5, warnIntervalMs: 1000, now: () => now });
    pushRange(q, 0, 8);
    expect(q.stats()).toEqual({ written: 0, dropped: 3, queued: 5 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^test-store: dropped 1 telemetry row\(s\).*queue is full \(5 rows\)/);
    now = 1000;
    q.push(99);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(/dropped 3 telemetry row\(s\) since the last warning \(4 in total\)/);
    const flushing = q.flush();
    sink.writes[0]!.resolve();
    await flushing;
    expect(sink.writes[0]!.batch).toEqual([0, 1, 2, 3, 4]);
    await q.close();
  });

  it('never throws into push when the sink fails, and writes again once the store is back', async () => {
    let failing = true;
    const written: number[] = [];
    const { q, warnings } = queue({
      write: async (b) => {
        if (failing) throw new Error('disk on fire');
        written.push(...b);
      },
    });
    expect(() => pushRange(q, 0, 6)).not.toThrow();
    await q.flush();
    expect(q.stats()).toEqual({ written: 0, dropped: 6, queued: 0 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Error: disk on fire');
    failing = false;
    pushRange(q, 6, 9);
    await q.flush();
    expect(written).toEqual([6, 7, 8]);
    expect(q.stats()).toEqual({ written: 3, dropped: 6, queued: 0 });
    await q.close();
  });

  it('counts a sink that throws synchronously as a failed write', async () => {
    const { q } = queue({
      write: () => {
        throw new Error('sync');
      },
    });
    pushRange(q, 0, 3);
    await q.flush();
    expect(q.stats()).toEqual({ written: 0, dropped: 3, queued: 0 });
    await q.close();
  });

  it('abandons a write that exceeds writeTimeoutMs; its late outcome changes nothing', async () => {
    const sink = scriptedSink();
    const { q, warnings } = queue({ write: sink.write, writeTimeoutMs: 500, flushTimeoutMs: 5000 });
    pushRange(q, 0, 3);
    const flushing = q.flush();
    await vi.advanceTimersByTimeAsync(500);
    await flushing;
    expect(q.stats()).toEqual({ written: 0, dropped: 3, queued: 0 });
    expect(warnings[0]).toContain('WriteTimedOut: no answer within 500 ms');
    sink.writes[0]!.reject(new Error('late failure'));
    pushRange(q, 3, 6);
    sink.writes[1]!.resolve();
    await q.flush();
    expect(q.stats()).toEqual({ written: 3, dropped: 3, queued: 0 });
    await q.close();
  });

  it('flush() resolves within flushTimeoutMs while the sink hangs', async () => {
    const { q } = queue({ write: () => new Promise<void>(() => {}), flushTimeoutMs: 200, writeTimeoutMs: 60_000 });
    pushRange(q, 0, 2);
    let flushed = false;
    const flushing = q.flush().then(() => {
      flushed = true;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(flushed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await flushing;
    expect(q.stats().queued).toBe(2);
    await closeWithin(q, 200);
  });

  it('close() flushes within its bound, drops what is left, and leaves no timer behind', async () => {
    const sink = scriptedSink();
    const { q } = queue({ write: sink.write, flushTimeoutMs: 300, writeTimeoutMs: 60_000 });
    pushRange(q, 0, 5);
    await closeWithin(q, 300);
    expect(sink.writes.map((w) => w.batch)).toEqual([[0, 1, 2]]);
    expect(q.stats()).toEqual({ written: 0, dropped: 5, queued: 0 });
    sink.writes[0]!.resolve();
    await vi.advanceTimersByTimeAsync(0);
    expect(q.stats()).toEqual({ written: 0, dropped: 5, queued: 0 });
  });

  it('close() writes everything queued when the store answers', async () => {
    const batches: number[][] = [];
    const { q } = queue({ write: async (b) => void batches.push(b) });
    pushRange(q, 0, 7);
    await q.close();
    expect(batches.flat()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(q.stats()).toEqual({ written: 7, dropped: 0, queued: 0 });
  });

  it('counts rows recorded after close as dropped; close is idempotent', async () => {
    const { q } = queue({ write: async () => {} });
    const first = q.close();
    expect(q.close()).toBe(first);
    await first;
    q.push(1);
    expect(q.stats()).toEqual({ written: 0, dropped: 1, queued: 0 });
  });

  it('counts discarded rows and keeps written + dropped + queued equal to what was offered', async () => {
    const sink = scriptedSink();
    const { q } = queue({ write: sink.write, maxQueue: 4, batchSize: 2 });
    pushRange(q, 0, 8); // [0, 1] in flight, [2..5] queued, 6 and 7 over capacity
    q.discard(new TypeError('bad row'));
    const s = q.stats();
    expect(s).toEqual({ written: 0, dropped: 3, queued: 6 });
    while (q.stats().queued > 0) {
      for (const w of sink.writes) w.resolve();
      await vi.advanceTimersByTimeAsync(0);
    }
    await q.close();
    expect(q.stats()).toEqual({ written: 6, dropped: 3, queued: 0 });
  });

  it('rate-limits its own warnings together with the drop warnings', async () => {
    let now = 0;
    const { q, warnings } = queue({ write: async () => {}, warnIntervalMs: 1000, now: () => now });
    q.warn('cannot open the store');
    q.discard(new Error('x'));
    expect(warnings).toEqual(['test-store: cannot open the store']);
    now = 1000;
    q.discard(new Error('y'));
    expect(warnings[1]).toMatch(/dropped 2 telemetry row\(s\).*Error: y/);
    await q.close();
  });

  it('rejects bad tuning with a RangeError naming the option', () => {
    expect(() => queue({ write: async () => {}, batchSize: 0 })).toThrow(/batchSize/);
    expect(() => queue({ write: async () => {}, flushIntervalMs: 1.5 })).toThrow(/flushIntervalMs/);
    expect(() => queue({ write: async () => {}, maxQueue: Number.NaN })).toThrow(RangeError);
  });
});

async function closeWithin(q: BatchingQueue<number>, boundMs: number) {
  let closed = false;
  const closing = q.close().then(() => {
    closed = true;
  });
  await vi.advanceTimersByTimeAsync(boundMs);
  await closing;
  expect(closed).toBe(true);
}
