/** The one engine chooser: settings read from the env (each refusal naming its key), and the store they name opened. */
import { SettingsError } from '@pgw/client';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BATCH_DIR, openBatchStore, readBatchSettings, SqliteBatchEngine } from '../src/index.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

function refusedKey(env: Record<string, string>): string {
  try {
    readBatchSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error.key;
    throw error;
  }
  throw new Error('the settings were accepted');
}

describe('readBatchSettings', () => {
  it('defaults to the sqlite engine in the default directory, or PGW_BATCH__DIR', () => {
    expect(readBatchSettings({})).toEqual({ engine: 'sqlite', dir: DEFAULT_BATCH_DIR });
    expect(readBatchSettings({ PGW_BATCH__DIR: '/var/jobs', REDIS_URL: 'redis://x:6379' })).toEqual({ engine: 'sqlite', dir: '/var/jobs' });
  });

  it('bullmq needs REDIS_URL and a DSN (PGW_BATCH__DSN, else PGW_TELEMETRY_DSN), and follows PGW_REDIS_MODE', () => {
    expect(refusedKey({ PGW_BATCH__ENGINE: 'bullmq', PGW_BATCH__DSN: 'postgres://x/db' })).toBe('REDIS_URL');
    expect(refusedKey({ PGW_BATCH__ENGINE: 'bullmq', REDIS_URL: 'redis://x:6379' })).toBe('PGW_BATCH__DSN');
    expect(readBatchSettings({ PGW_BATCH__ENGINE: 'bullmq', REDIS_URL: 'redis://x:6379', PGW_TELEMETRY_DSN: 'postgres://t/db' })).toEqual({
      engine: 'bullmq',
      redisUrl: 'redis://x:6379',
      redisMode: 'standalone',
      dsn: 'postgres://t/db',
    });
    expect(readBatchSettings({ PGW_BATCH__ENGINE: 'bullmq', REDIS_URL: 'redis://x:6379', PGW_TELEMETRY_DSN: 'postgres://t/db', PGW_BATCH__DSN: 'postgres://b/db' })).toMatchObject({ dsn: 'postgres://b/db' });
    expect(readBatchSettings({ PGW_BATCH__ENGINE: 'bullmq', REDIS_URL: 'redis://a:7001,redis://b:7002', PGW_REDIS_MODE: 'cluster', PGW_BATCH__DSN: 'postgres://b/db' })).toMatchObject({ redisMode: 'cluster' });
  });

  it('refuses an unknown engine naming PGW_BATCH__ENGINE', () => {
    expect(refusedKey({ PGW_BATCH__ENGINE: 'kafka' })).toBe('PGW_BATCH__ENGINE');
  });
});

describe('openBatchStore', () => {
  it('opens the sqlite engine in the directory of the settings', async () => {
    const dir = tempDir();
    const store = await openBatchStore({ engine: 'sqlite', dir });
    try {
      expect(store).toBeInstanceOf(SqliteBatchEngine);
      await store.open({ id: 'j', tenantId: '' }, []);
      expect((await store.jobs(undefined, { limit: 5 })).map((job) => job.job)).toEqual(['j']);
    } finally {
      await store.close();
    }
  });
});
