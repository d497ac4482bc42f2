/**
 * The console's admin keys (`PGW_SERVER__ADMIN_KEYS`): a JSON list of keys, or the path of a file
 * holding one. Kept only as SHA-256 digests and matched in constant time, as the API keys are; never
 * echoed. An admin key opens the console only: it is no API key, and an API key is no admin key.
 */
import { readFileSync } from 'node:fs';
import { SettingsError } from '@pgw/client';
import { keyDigest, matchingEntry, type KeyTable } from './api-keys.js';

const KEY = 'PGW_SERVER__ADMIN_KEYS';
const SHAPE = 'must be a JSON list ["<admin key>", …] or the path of a readable file holding one';
const MIN_LENGTH = 8;
/** Searched per login attempt: bounded like any other input. */
const MAX_KEYS = 100;

/** The admin keys of `PGW_SERVER__ADMIN_KEYS` (unset: none); a key that is also an API key is refused. */
export function readAdminKeys(raw: string | undefined, apiKeys: KeyTable): AdminKeys {
  if (raw === undefined || raw.trim() === '') return new AdminKeys([]);
  const value = raw.trim();
  const keys = parseList(value.startsWith('[') ? value : readListFile(value));
  if (keys.some((key) => apiKeys.has(key))) throw new SettingsError({ key: KEY, problem: 'names a key that is also in PGW_SERVER__KEYS: an admin key must be a key of its own' });
  return new AdminKeys(keys);
}

function readListFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new SettingsError({ key: KEY, problem: SHAPE });
  }
}

function parseList(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SettingsError({ key: KEY, problem: SHAPE });
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_KEYS) throw new SettingsError({ key: KEY, problem: `must list 1 to ${MAX_KEYS} admin keys (leave it unset for none)` });
  // The position names a bad entry, never its content.
  const bad = value.findIndex((key) => typeof key !== 'string' || key.trim().length < MIN_LENGTH);
  if (bad >= 0) throw new SettingsError({ key: KEY, problem: `admin key #${bad + 1} must be a string of at least ${MIN_LENGTH} characters` });
  return (value as string[]).map((key) => key.trim());
}

export class AdminKeys {
  readonly #entries: readonly { digest: Buffer; value: true }[];

  constructor(keys: readonly string[]) {
    this.#entries = keys.map((key) => ({ digest: keyDigest(key), value: true }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Whether `key` is an admin key (constant time over the whole list). */
  admits(key: string): boolean {
    return matchingEntry(this.#entries, key.trim()) === true;
  }
}
