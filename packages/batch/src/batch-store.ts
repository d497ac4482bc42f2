/**
 * The one place the batch engine is chosen (`pgw batch` and `pgw serve` alike): the settings read from
 * the env, and the store they name opened. The fleet engine is an optional package, loaded only when
 * named, so an application on the embedded engine installs neither BullMQ nor ioredis nor pg.
 */
import { loadOptional, SettingsError, settingsFromEnv, type EnvKey, type EnvRecord } from '@pgw/client';
import { z } from 'zod';
import type { BatchEngine, BatchFileStore } from '@pgw/core';
import { SqliteBatchEngine } from './sqlite-engine.js';

export const BATCH_ENGINES = ['sqlite', 'bullmq'] as const;
export const DEFAULT_BATCH_DIR = '.pgw/batch';

/** `sqlite`: every job in one SQLite file under `dir`; `bullmq`: the queue on Redis, items, results and files in PostgreSQL. */
export type BatchSettings = { engine: 'sqlite'; dir: string } | { engine: 'bullmq'; redisUrl: string; redisMode: 'standalone' | 'cluster'; dsn: string };

/** A store of jobs and of the server's batch files: both engines are both. */
export type BatchStore = BatchEngine & BatchFileStore;

const KEYS: readonly EnvKey[] = [
  { key: 'PGW_BATCH__ENGINE', field: 'engine', parse: 'text' },
  { key: 'PGW_BATCH__DIR', field: 'dir', parse: 'text' },
  { key: 'PGW_BATCH__DSN', field: 'dsn', parse: 'text' },
  { key: 'PGW_TELEMETRY_DSN', field: 'telemetryDsn', parse: 'text' },
  { key: 'REDIS_URL', field: 'redisUrl', parse: 'text' },
  { key: 'PGW_REDIS_MODE', field: 'redisMode', parse: 'text' },
];

const schema = z.strictObject({
  engine: z.enum(BATCH_ENGINES, { error: 'must be sqlite or bullmq' }).default('sqlite'),
  dir: z.string().min(1).default(DEFAULT_BATCH_DIR),
  dsn: z.string().min(1).optional(),
  telemetryDsn: z.string().min(1).optional(),
  redisUrl: z.string().min(1).optional(),
  // Checked by the clients' settings (sentinel included); the queue follows a cluster.
  redisMode: z.string().optional(),
});

/**
 * The engine `PGW_BATCH__ENGINE` names: `sqlite` (default; its file under `PGW_BATCH__DIR`) or
 * `bullmq` (the queue on `REDIS_URL`, a cluster when `PGW_REDIS_MODE=cluster`; items, results and
 * files in the PostgreSQL of `PGW_BATCH__DSN`, default `PGW_TELEMETRY_DSN`). A missing or bad key is a
 * SettingsError naming it.
 */
export function readBatchSettings(env: EnvRecord): BatchSettings {
  const { engine, dir, dsn, telemetryDsn, redisUrl, redisMode } = settingsFromEnv(env, KEYS, schema);
  if (engine === 'sqlite') return { engine, dir };
  if (redisUrl === undefined) throw new SettingsError({ key: 'REDIS_URL', problem: 'is required when PGW_BATCH__ENGINE=bullmq (the queue)' });
  const store = dsn ?? telemetryDsn;
  if (store === undefined) throw new SettingsError({ key: 'PGW_BATCH__DSN', problem: 'is required when PGW_BATCH__ENGINE=bullmq (the items, results and files), unless PGW_TELEMETRY_DSN is set' });
  return { engine, redisUrl, redisMode: redisMode === 'cluster' ? 'cluster' : 'standalone', dsn: store };
}

/** Opens the store the settings name; the fleet engine needs @pgw/batch-bullmq installed (a MissingPackageError names it). */
export async function openBatchStore(settings: BatchSettings): Promise<BatchStore> {
  if (settings.engine === 'sqlite') return new SqliteBatchEngine({ dir: settings.dir });
  const { BullmqBatchEngine } = await loadOptional('@pgw/batch-bullmq', 'PGW_BATCH__ENGINE=bullmq', () => import('@pgw/batch-bullmq'));
  return new BullmqBatchEngine({ redisUrl: settings.redisUrl, redisMode: settings.redisMode, dsn: settings.dsn });
}
