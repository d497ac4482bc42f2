/**
 * Everything that touches the file: open (migrate), insert a batch, rotate, enforce maxBytes. The
 * same object runs on the recorder's thread (`thread: 'main'`) or inside the writer thread.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TelemetryColumnValue } from '@pgw/core/internal';
import { pruneRotated, renameAside } from './rotation.js';
import { driverFailure } from './sqlite-driver.js';
import { SqliteStore } from './sqlite-store.js';

/** Plain data only: it crosses to the writer thread as `workerData`. */
export interface SqliteWriterConfig {
  path: string;
  batchSize: number;
  rotateBytes: number;
  rotateKeep: number;
  maxBytes: number;
  /** How long a write waits for another connection's lock before its batch fails. */
  busyTimeoutMs: number;
  /** better-sqlite3's native binary, when not the package's own build (its `nativeBinding` option). */
  nativeBinding?: string;
}

export type SqliteRow = TelemetryColumnValue[];

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class SqliteWriter {
  private store: SqliteStore | undefined;

  constructor(
    private readonly config: SqliteWriterConfig,
    private readonly now: () => number,
    private readonly warn: (message: string) => void,
  ) {}

  /** Opens (creates, migrates) the file unless it is open; throws saying what failed (the path or the driver) if it cannot. */
  open(): SqliteStore {
    const { path, batchSize, maxBytes, busyTimeoutMs, nativeBinding } = this.config;
    try {
      this.store ??= new SqliteStore(path, { batchSize, now: this.now, maxBytes, busyTimeoutMs, nativeBinding });
      return this.store;
    } catch (error) {
      throw (
        driverFailure(path, error, nativeBinding) ??
        new Error(`cannot open ${path}: ${describeError(error)} (its directory ${dirname(path)} must exist and be writable)`, { cause: error })
      );
    }
  }

  /** All rows in one transaction, then a rotation if the file grew past rotateBytes; throws if the batch failed. */
  write(rows: SqliteRow[]): void {
    const store = this.open();
    store.insert(rows);
    if (this.config.rotateBytes > 0 && store.sizeBytes() > this.config.rotateBytes) this.rotate(store);
  }

  close(): void {
    this.store?.close();
    this.store = undefined;
  }

  /** Runs after a written batch, so a failure here warns but never counts those rows as dropped. */
  private rotate(store: SqliteStore): void {
    const { path, rotateKeep } = this.config;
    store.close();
    this.store = undefined;
    try {
      // A WAL left behind means another connection still has the file open: moving it now could lose its WAL.
      if (existsSync(`${path}-wal`)) {
        this.warn(`rotation postponed: another connection holds ${path} open`);
      } else {
        renameAside(path, this.now());
        pruneRotated(path, rotateKeep);
      }
      this.open();
    } catch (error) {
      this.warn(`rotation failed: ${describeError(error)}`);
    }
  }
}
