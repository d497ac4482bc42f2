import { createHook } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { TelemetryRow } from '@pgw/core';
import { sampleTelemetryRow, telemetryRow } from '@pgw/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRecorder, type SqliteRecorderOptions } from '../src/index.js';
import { countRows, readRows, tempDir } from './support.js';

/** Worker threads alive in this process: a thread's async resource is destroyed when it has exited. */
const liveWorkers = new Set<number>();
const workerHook = createHook({
  init(id, type) {
    if (type === 'WORKER') liveWorkers.add(id);
  },
  destroy(id) {
    liveWorkers.delete(id);
  },
});
beforeAll(() => workerHook.enable());
afterAll(() => workerHook.disable());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratchPath(name = 'telemetry.sqlite'): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return join(dir, name);
}

async function openRecorder(options: SqliteRecorderOptions) {
  const recorder = await SqliteRecorder.open(options);
  cleanups.push(() => recorder.close());
  return recorder;
}

/** The internal seam to the recorder's writer thread, to make it die as a crash or an OOM would. */
function writerThreadOf(recorder: SqliteRecorder): Worker {
  const worker = (recorder as unknown as { writer: { worker?: Worker } }).writer.worker;
  if (!worker) throw new Error('the recorder has no writer thread running');
  return worker;
}

async function turnsOfTheEventLoop(count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('SqliteRecorder writer thread', () => {
  it('writes exactly the rows the main thread writes', async () => {
    const rows: TelemetryRow[] = [
      ...Array.from({ length: 120 }, (_, i) => sampleTelemetryRow(i)),
      telemetryRow({ error: 'cut \uD83D', meta: { ['k\uDE80']: 'v\uD83D', nested: [1, null, { deep: 2.5 }] } }),
      telemetryRow({ latencyMs: Number.NaN, costUsd: Number.POSITIVE_INFINITY, promptTokens: 12.6, toolCalls: 0 }),
    ];
    const read = async (thread: 'worker' | 'main') => {
      const path = scratchPath(`${thread}.sqlite`);
      const recorder = await openRecorder({ path, thread, batchSize: 50 });
      for (const row of rows) recorder.record(row);
      await recorder.close();
      expect(recorder.stats()).toEqual({ written: rows.length, dropped: 0, queued: 0 });
      return readRows(path);
    };
    const inWorker = await read('worker');
    expect(inWorker).toHaveLength(rows.length);
    expect(inWorker).toEqual(await read('main'));
  });

  it('keeps the event loop turning and queues new rows while a batch waits for a lock', async () => {
    const path = scratchPath();
    const recorder = await openRecorder({ path, batchSize: 10 });
    const blocker = new Database(path);
    cleanups.push(() => {
      blocker.close();
    });
    blocker.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < 15; i += 1) recorder.record(telemetryRow());
    await turnsOfTheEventLoop(5);
    // The first batch is still in the writer thread, waiting; the next five rows wait in the queue.
    expect(recorder.stats()).toEqual({ written: 0, dropped: 0, queued: 15 });
    blocker.exec('COMMIT');
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 15, dropped: 0, queued: 0 });
    expect(countRows(path)).toBe(15);
  });

  it('counts the batch in flight as dropped when the thread dies, says why, and writes the next batch in a new thread', async () => {
    const path = scratchPath();
    const warnings: string[] = [];
    const recorder = await openRecorder({ path, batchSize: 10, warn: (m) => warnings.push(m) });
    for (let i = 0; i < 9; i += 1) recorder.record(telemetryRow());
    void writerThreadOf(recorder).terminate();
    recorder.record(telemetryRow()); // the tenth row sends the batch to the dying thread
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 0, dropped: 10, queued: 0 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/dropped 10 telemetry row\(s\).*the writer thread exited with code 1; a new one starts with the next batch/);

    const kept = Array.from({ length: 10 }, () => telemetryRow());
    for (const row of kept) recorder.record(row);
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 10, dropped: 10, queued: 0 });
    expect(readRows(path).map((r) => r.callId)).toEqual(kept.map((r) => r.callId));
  });

  it('warns when an idle thread dies, and starts a new one for the next batch', async () => {
    const path = scratchPath();
    const warnings: string[] = [];
    const recorder = await openRecorder({ path, batchSize: 5, warn: (m) => warnings.push(m) });
    await writerThreadOf(recorder).terminate();
    await turnsOfTheEventLoop(2);
    expect(warnings).toEqual([`@pgw/telemetry-sqlite (${path}): the writer thread exited with code 1; a new one starts with the next batch`]);
    for (let i = 0; i < 5; i += 1) recorder.record(telemetryRow());
    await recorder.flush();
    expect(recorder.stats()).toEqual({ written: 5, dropped: 0, queued: 0 });
  });

  it('close() writes the rows still queued, closes the file and leaves no thread behind', async () => {
    const path = scratchPath();
    const recorder = await SqliteRecorder.open({ path, batchSize: 100, flushIntervalMs: 60_000 });
    for (let i = 0; i < 30; i += 1) recorder.record(telemetryRow());
    expect(liveWorkers.size).toBe(1);
    await recorder.close();
    expect(recorder.stats()).toEqual({ written: 30, dropped: 0, queued: 0 });
    // The last connection closed: SQLite checkpointed the WAL and removed it.
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(countRows(path)).toBe(30);
    await turnsOfTheEventLoop(2);
    expect(liveWorkers.size).toBe(0);
  });
});
