/**
 * TelemetryRecorder on a SQLite file (docs/architecture.md#telemetry): batched through the core
 * queue, written by a worker thread (or on the caller's thread), rotated by size.
 */
import type { RecorderQueueOptions, TelemetryRow } from '@pgw/core';
import { QueuedRecorder, telemetryRowValues, type TelemetryColumnValue } from '@pgw/core/internal';
import { describeError, SqliteWriter, type SqliteRow, type SqliteWriterConfig } from './sqlite-writer.js';
import { WriterThread } from './writer-thread.js';

export interface SqliteRecorderOptions extends RecorderQueueOptions {
  /** The database file; its directory must exist. */
  path: string;
  /** Rotate once the file holds more than this many bytes (default 256 MiB; 0 = never). */
  rotateBytes?: number;
  /** Rotated files kept, newest first; older ones are deleted (default 10). */
  rotateKeep?: number;
  /**
   * A hard cap on the file (default 0 = none, the disk's size): a batch beyond it fails as on a full
   * disk, dropped and counted. A `rotateBytes` below it rotates first.
   */
  maxBytes?: number;
  /**
   * Where the file is written (default `'worker'`): a worker thread owned by the recorder, so a batch
   * never pauses the event loop; or `'main'`, the thread that records (no worker thread needed).
   */
  thread?: 'worker' | 'main';
}

const DEFAULT_ROTATE_BYTES = 256 * 1024 * 1024;
const DEFAULT_ROTATE_KEEP = 10;
const DEFAULT_BATCH_SIZE = 500;
/**
 * How long a write waits for another connection's lock. On the caller's thread the wait pauses every
 * call, so it stays short; the writer thread can ride out a reader's checkpoint without anyone waiting.
 */
const BUSY_TIMEOUT_MS = { main: 200, worker: 1_000 } as const;

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`SqliteRecorder option ${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function threadOption(value: unknown): 'worker' | 'main' {
  if (value === undefined) return 'worker';
  if (value === 'worker' || value === 'main') return value;
  throw new RangeError(`SqliteRecorder option thread must be 'worker' or 'main', got ${String(value)}`);
}

/** What the recorder needs of a writer, wherever it runs. */
interface RowWriter {
  open(): unknown;
  write(rows: SqliteRow[]): Promise<void> | void;
  close(): Promise<void> | void;
}

export class SqliteRecorder extends QueuedRecorder<TelemetryColumnValue[]> {
  private readonly writer: RowWriter;

  /**
   * Opens the recorder. An unwritable path never throws: it warns (naming the path) and the recorder
   * drops and counts rows, trying the file again with every batch. Bad options throw a RangeError.
   */
  static async open(options: SqliteRecorderOptions): Promise<SqliteRecorder> {
    const recorder = new SqliteRecorder(options);
    try {
      await recorder.writer.open();
    } catch (error) {
      recorder.queue.warn(`${describeError(error)}; rows are dropped until it opens`);
    }
    return recorder;
  }

  private constructor(options: SqliteRecorderOptions) {
    if (typeof options.path !== 'string' || options.path === '') {
      throw new RangeError('SqliteRecorder option path must be a non-empty string');
    }
    const thread = threadOption(options.thread);
    const config: SqliteWriterConfig = {
      path: options.path,
      rotateBytes: nonNegativeInteger('rotateBytes', options.rotateBytes, DEFAULT_ROTATE_BYTES),
      rotateKeep: nonNegativeInteger('rotateKeep', options.rotateKeep, DEFAULT_ROTATE_KEEP),
      maxBytes: nonNegativeInteger('maxBytes', options.maxBytes, 0),
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      busyTimeoutMs: BUSY_TIMEOUT_MS[thread],
    };
    super({ ...options, batchSize: config.batchSize, label: `@pgw/telemetry-sqlite (${options.path})` });
    const now = options.now ?? Date.now;
    const warn = (message: string) => this.queue.warn(message);
    this.writer = thread === 'worker' ? new WriterThread(config, now, warn) : new SqliteWriter(config, now, warn);
  }

  protected encode(row: TelemetryRow): TelemetryColumnValue[] {
    return telemetryRowValues(row);
  }

  protected write(batch: TelemetryColumnValue[][]): Promise<void> | void {
    return this.writer.write(batch);
  }

  protected release(): Promise<void> | void {
    return this.writer.close();
  }
}
