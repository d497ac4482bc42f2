/** One open SQLite telemetry file: WAL, migrated, with prepared multi-row inserts. */
import Database from 'better-sqlite3';
import { TELEMETRY_COLUMNS } from '@pgw/core';
import type { TelemetryColumnValue } from '@pgw/core/internal';
import { migrate } from './schema.js';

/**
 * Rows per multi-row statement: 2800 bound values, well under SQLite's 32766. Without a network
 * round trip to save, bigger statements measured no faster here, only heavier to bind.
 */
const ROWS_PER_STATEMENT = 100;

type Row = TelemetryColumnValue[];

function insertSql(rows: number): string {
  const columns = TELEMETRY_COLUMNS.map(([name]) => name).join(', ');
  const tuple = `(${TELEMETRY_COLUMNS.map(() => '?').join(', ')})`;
  return `INSERT INTO llm_calls (${columns}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`;
}

export interface SqliteStoreOptions {
  batchSize: number;
  now: () => number;
  /** 0 = no cap. Beyond it SQLite answers "database or disk is full". */
  maxBytes: number;
  /** How long a statement waits for another connection's lock before it fails with SQLITE_BUSY. */
  busyTimeoutMs: number;
  /** better-sqlite3's `nativeBinding`: its native binary, when not the package's own build. */
  nativeBinding?: string | undefined;
}

export class SqliteStore {
  private readonly db: Database.Database;
  private readonly chunkRows: number;
  private readonly insertChunk: Database.Statement;
  private readonly insertOne: Database.Statement;
  private readonly insertBatch: Database.Transaction<(rows: Row[]) => void>;

  /** Opens (creating if needed) and migrates the file; throws if it cannot. The directory must exist. */
  constructor(path: string, { batchSize, now, maxBytes, busyTimeoutMs, nativeBinding }: SqliteStoreOptions) {
    this.db = new Database(path, { timeout: busyTimeoutMs, ...(nativeBinding !== undefined && { nativeBinding }) });
    try {
      if (maxBytes > 0) {
        const pageSize = this.db.pragma('page_size', { simple: true }) as number;
        this.db.pragma(`max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
      }
      this.db.pragma('journal_mode = WAL');
      // WAL + NORMAL is durable against application crashes; a power loss may lose the last batches.
      this.db.pragma('synchronous = NORMAL');
      migrate(this.db, now);
      this.chunkRows = Math.min(batchSize, ROWS_PER_STATEMENT);
      this.insertChunk = this.db.prepare(insertSql(this.chunkRows));
      this.insertOne = this.db.prepare(insertSql(1));
      this.insertBatch = this.db.transaction((rows: Row[]) => {
        let at = 0;
        for (; at + this.chunkRows <= rows.length; at += this.chunkRows) {
          this.insertChunk.run(rows.slice(at, at + this.chunkRows).flat());
        }
        for (; at < rows.length; at += 1) this.insertOne.run(rows[at]);
      });
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  /** All rows in one immediate transaction. */
  insert(rows: Row[]): void {
    this.insertBatch.immediate(rows);
  }

  /** Pages in use, including those still in the WAL. */
  sizeBytes(): number {
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    return pages * pageSize;
  }

  /** As the last connection, SQLite checkpoints the WAL into the file and removes it. */
  close(): void {
    this.db.close();
  }
}
