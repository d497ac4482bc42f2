/** The messages between the recorder and its writer thread. Rows travel as arrays of column values in TELEMETRY_COLUMNS order. */
import type { SqliteRow } from './sqlite-writer.js';

export type WriterRequestBody = { kind: 'open' } | { kind: 'write'; rows: SqliteRow[] } | { kind: 'close' };

/** `at` is the recorder's clock when it asked, so an injected `now` still stamps rotations and migrations. */
export type WriterRequest = WriterRequestBody & { id: number; at: number };

export interface WriterReply {
  id: number;
  /** Set when the request failed; a batch is one transaction, so then none of its rows was written, otherwise all were. */
  error?: { name: string; message: string };
  /** Warnings raised while serving the request (rotation postponed or failed). */
  warnings: string[];
}
