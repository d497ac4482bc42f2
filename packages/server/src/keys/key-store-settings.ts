/**
 * Where the stored keys live (`PGW_KEYS__…`): the embedded SQLite file under `.pgw/keys/` (nothing to
 * configure: on whenever admin keys are, since only an admin key creates a stored key), or the
 * PostgreSQL a fleet shares (`PGW_KEYS__DSN`), whose adapter is an optional package loaded only then,
 * so a server on the embedded store installs no pg.
 */
import { loadOptional, SettingsError, settingsFromEnv, type EnvKey, type EnvRecord } from '@pgw/client';
import type { KeyStore } from '@pgw/core';
import { SqliteKeyStore } from '@pgw/keys-sqlite';
import { z } from 'zod';

export const KEY_STORES = ['off', 'sqlite', 'postgres'] as const;
export const DEFAULT_KEYS_DIR = '.pgw/keys';

export type KeyStoreSettings = { store: 'off' } | { store: 'sqlite'; dir: string } | { store: 'postgres'; dsn: string; schema?: string };

const KEYS: readonly EnvKey[] = [
  { key: 'PGW_KEYS__STORE', field: 'store', parse: 'text' },
  { key: 'PGW_KEYS__DIR', field: 'dir', parse: 'text' },
  { key: 'PGW_KEYS__DSN', field: 'dsn', parse: 'text' },
  { key: 'PGW_KEYS__SCHEMA', field: 'schema', parse: 'text' },
];

const schema = z.strictObject({
  store: z.enum(KEY_STORES, { error: 'must be off, sqlite or postgres' }).optional(),
  dir: z.string().min(1).default(DEFAULT_KEYS_DIR),
  dsn: z.string().min(1).optional(),
  schema: z.string().regex(/^[a-z_][a-z0-9_]{0,47}$/, 'must be lower-case letters, digits and _ (at most 48), starting with a letter or _').optional(),
});

/**
 * `PGW_KEYS__STORE` (`off`, `sqlite`, `postgres`); unset: `postgres` when `PGW_KEYS__DSN` is set, else
 * `sqlite` when the server has admin keys, else `off`.
 */
export function readKeyStoreSettings(env: EnvRecord, hasAdminKeys: boolean): KeyStoreSettings {
  const { store, dir, dsn, schema: pgSchema } = settingsFromEnv(env, KEYS, schema);
  const chosen = store ?? (dsn !== undefined ? 'postgres' : hasAdminKeys ? 'sqlite' : 'off');
  if (chosen === 'off') return { store: 'off' };
  if (chosen === 'sqlite') return { store: 'sqlite', dir };
  if (dsn === undefined) throw new SettingsError({ key: 'PGW_KEYS__DSN', problem: 'is required when PGW_KEYS__STORE=postgres' });
  return { store: 'postgres', dsn, ...(pgSchema !== undefined && { schema: pgSchema }) };
}

/** What the server uses of @pgw/keys-pg (an optional peer: typed here, the typecheck holds the module to it). */
interface FleetKeyStoreModule {
  PgKeyStore: { open(options: { dsn: string; schema?: string }): Promise<KeyStore> };
}

/** Opens the store the settings name (not `off`); PostgreSQL needs @pgw/keys-pg installed (a MissingPackageError names it). */
export async function openKeyStore(settings: Exclude<KeyStoreSettings, { store: 'off' }>): Promise<KeyStore> {
  if (settings.store === 'sqlite') return new SqliteKeyStore({ dir: settings.dir });
  const { PgKeyStore } = await loadOptional<FleetKeyStoreModule>('@pgw/keys-pg', 'PGW_KEYS__DSN', () => import('@pgw/keys-pg'));
  return PgKeyStore.open({ dsn: settings.dsn, ...(settings.schema !== undefined && { schema: settings.schema }) });
}
