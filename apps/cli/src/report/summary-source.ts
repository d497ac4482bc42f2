/**
 * Which telemetry store `pgw report` reads (flags first, then PGW_TELEMETRY_BACKEND and its keys)
 * and reading its summary through the store's own query helper.
 */
import { existsSync } from 'node:fs';
import { SettingsError } from '@pgw/client';
import type { SummaryRange, TelemetrySummary } from '@pgw/core';
import { UsageError } from '../usage-error.js';

export type SummarySource = { kind: 'sqlite'; path: string } | { kind: 'postgres'; dsn: string; schema?: string };

export interface StoreFlags {
  sqlite?: string;
  dsn?: string;
  /** Schema of the Postgres table (the recorder's default is `public`). */
  pgSchema?: string;
}

export function resolveSummarySource(flags: StoreFlags, env: ReadonlyMap<string, string>): SummarySource {
  if (flags.sqlite !== undefined) {
    if (!existsSync(flags.sqlite)) throw new UsageError('--sqlite', `no such file: ${flags.sqlite}`);
    return { kind: 'sqlite', path: flags.sqlite };
  }
  const schema = flags.pgSchema === undefined ? {} : { schema: flags.pgSchema };
  if (flags.dsn !== undefined) return { kind: 'postgres', dsn: flags.dsn, ...schema };

  const backend = env.get('PGW_TELEMETRY_BACKEND')?.toLowerCase();
  if (backend === 'sqlite') {
    const path = env.get('PGW_SQLITE_PATH');
    if (path === undefined) {
      throw new SettingsError({ key: 'PGW_SQLITE_PATH', problem: 'required: PGW_TELEMETRY_BACKEND is sqlite' });
    }
    if (!existsSync(path)) throw new SettingsError({ key: 'PGW_SQLITE_PATH', problem: `no such file: ${path}`, value: path });
    return { kind: 'sqlite', path };
  }
  if (backend === 'postgres') {
    const dsn = env.get('PGW_TELEMETRY_DSN');
    if (dsn === undefined) {
      throw new SettingsError({ key: 'PGW_TELEMETRY_DSN', problem: 'required: PGW_TELEMETRY_BACKEND is postgres' });
    }
    return { kind: 'postgres', dsn, ...schema };
  }
  if (backend === undefined || backend === 'none') {
    throw new SettingsError({
      key: 'PGW_TELEMETRY_BACKEND',
      problem: `is ${backend ?? 'unset'}: no telemetry store to report on (set it to sqlite or postgres, or pass --sqlite / --dsn)`,
    });
  }
  throw new SettingsError({ key: 'PGW_TELEMETRY_BACKEND', problem: 'must be none, sqlite or postgres', value: backend });
}

/** A label for the report header; a DSN's password never appears. */
export function describeSummarySource(source: SummarySource): string {
  if (source.kind === 'sqlite') return `sqlite ${source.path}`;
  try {
    const url = new URL(source.dsn);
    if (url.password !== '') url.password = '***';
    if (url.searchParams.has('password')) url.searchParams.set('password', '***');
    return `postgres ${url.toString()}${source.schema === undefined ? '' : ` schema ${source.schema}`}`;
  } catch {
    return 'postgres (DSN not shown)';
  }
}

/** The stores are imported on demand: the other commands should not pay for loading pg and better-sqlite3. */
export async function readSummary(source: SummarySource, range: SummaryRange): Promise<TelemetrySummary> {
  if (source.kind === 'sqlite') {
    const { summarize } = await import('@pgw/telemetry-sqlite');
    return summarize({ path: source.path }, range);
  }
  const { summarize } = await import('@pgw/telemetry-pg');
  return summarize({ dsn: source.dsn, ...(source.schema !== undefined && { schema: source.schema }) }, range);
}
