/** TelemetryRecorder on a SQLite file (docs/architecture.md#telemetry): batched through the core queue, rotated by size. */
import { existsSync } from 'node:fs';
import {
  QueuedRecorder,
  telemetryRowValues,
  type RecorderQueueOptions,
  type TelemetryColumnValue,
  type TelemetryRow,
} from '@pgw/core';
import { pruneRotated, renameAside } from './rotation.js';
import { SqliteStore } from './sqlite-store.js';

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
}

const DEFAULT_ROTATE_BYTES = 256 * 1024 * 1024;
const DEFAULT_ROTATE_KEEP = 10;
const DEFAULT_BATCH_SIZE = 500;

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`SqliteRecorder option ${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class SqliteRecorder extends QueuedRecorder<TelemetryColumnValue[]> {
  private readonly path: string;
  private readonly batchSize: number;
  private readonly rotateBytes: number;
  private readonly rotateKeep: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private store: SqliteStore | undefined;

  /**
   * Opens the recorder. An unwritable path never throws: it warns (naming the path) and the recorder
   * drops and counts rows, trying the file again with every batch. Bad options throw a RangeError.
   */
  static async open(options: SqliteRecorderOptions): Promise<SqliteRecorder> {
    const recorder = new SqliteRecorder(options);
    try {
      recorder.openStore();
    } catch (error) {
      recorder.queue.warn(`${describe(error)}; rows are dropped until it opens`);
    }
    return recorder;
  }

  private constructor(options: SqliteRecorderOptions) {
    if (typeof options.path !== 'string' || options.path === '') {
      throw new RangeError('SqliteRecorder option path must be a non-empty string');
    }
    const rotateBytes = nonNegativeInteger('rotateBytes', options.rotateBytes, DEFAULT_ROTATE_BYTES);
    const rotateKeep = nonNegativeInteger('rotateKeep', options.rotateKeep, DEFAULT_ROTATE_KEEP);
    const maxBytes = nonNegativeInteger('maxBytes', options.maxBytes, 0);
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    super({ ...options, batchSize, label: `@pgw/telemetry-sqlite (${options.path})` });
    this.path = options.path;
    this.rotateBytes = rotateBytes;
    this.rotateKeep = rotateKeep;
    this.maxBytes = maxBytes;
    this.batchSize = batchSize;
    this.now = options.now ?? Date.now;
  }

  protected encode(row: TelemetryRow): TelemetryColumnValue[] {
    return telemetryRowValues(row);
  }

  protected release(): void {
    this.store?.close();
    this.store = undefined;
  }

  private openStore(): SqliteStore {
    try {
      this.store ??= new SqliteStore(this.path, this.batchSize, this.now, this.maxBytes);
      return this.store;
    } catch (error) {
      throw new Error(`cannot open ${this.path}: ${describe(error)} (its directory must exist and be writable)`, {
        cause: error,
      });
    }
  }

  protected write(batch: TelemetryColumnValue[][]): void {
    const store = this.openStore();
    store.insert(batch);
    if (this.rotateBytes > 0 && store.sizeBytes() > this.rotateBytes) this.rotate(store);
  }

  /** Runs after a written batch, so a failure here warns but never counts those rows as dropped. */
  private rotate(store: SqliteStore): void {
    store.close();
    this.store = undefined;
    try {
      // A WAL left behind means another connection still has the file open: moving it now could lose its WAL.
      if (existsSync(`${this.path}-wal`)) {
        this.queue.warn(`rotation postponed: another connection holds ${this.path} open`);
      } else {
        renameAside(this.path, this.now());
        pruneRotated(this.path, this.rotateKeep);
      }
      this.openStore();
    } catch (error) {
      this.queue.warn(`rotation failed: ${describe(error)}`);
    }
  }
}
