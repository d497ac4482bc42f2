/** Test helpers: temp directories and reading a telemetry file back as rows. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { TELEMETRY_COLUMNS, type TelemetryRow } from '@pgw/core';

export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-sqlite-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Rows of a file in insertion order; NULL comes back as an absent key, `meta` parsed. */
export function readRows(path: string): TelemetryRow[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const records = db.prepare('SELECT * FROM llm_calls ORDER BY rowid').all() as Array<Record<string, unknown>>;
    return records.map((record) => {
      const row: Record<string, unknown> = {};
      for (const [column, field] of TELEMETRY_COLUMNS) {
        const value = record[column];
        if (value === null || value === undefined) continue;
        row[field] = field === 'meta' ? JSON.parse(value as string) : value;
      }
      return row as unknown as TelemetryRow;
    });
  } finally {
    db.close();
  }
}

export function countRows(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM llm_calls').pluck().get() as number;
  } finally {
    db.close();
  }
}
