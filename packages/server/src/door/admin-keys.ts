/**
 * The operators' keys: the console's admin keys (`PGW_SERVER__ADMIN_KEYS`) and the metrics scrape's
 * (`PGW_SERVER__METRICS_KEYS`), each a JSON list of keys or the path of a file holding one. Kept only
 * as SHA-256 digests and matched in constant time, as the API keys are; never echoed. An operator's
 * key is no API key, and an API key is no operator's key.
 */
import { readFileSync } from 'node:fs';
import { SettingsError } from '@pgw/client';
import { keyDigest, matchingEntry, type KeyTable } from './api-keys.js';

export type OperatorKeyName = 'PGW_SERVER__ADMIN_KEYS' | 'PGW_SERVER__METRICS_KEYS';
const SHAPE = 'must be a JSON list ["<key>", …] or the path of a readable file holding one';
const MIN_LENGTH = 8;
/** Searched per login attempt: bounded like any other input. */
const MAX_KEYS = 100;

/** The keys of `name` (unset: none); a key that is also an API key is refused. */
export function readOperatorKeys(name: OperatorKeyName, raw: string | undefined, apiKeys: KeyTable): OperatorKeys {
  if (raw === undefined || raw.trim() === '') return new OperatorKeys([]);
  const value = raw.trim();
  const keys = parseList(name, value.startsWith('[') ? value : readListFile(name, value));
  if (keys.some((key) => apiKeys.has(key))) throw new SettingsError({ key: name, problem: 'names a key that is also in PGW_SERVER__KEYS: an operator\'s key must be a key of its own' });
  return new OperatorKeys(keys);
}

function readListFile(name: OperatorKeyName, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new SettingsError({ key: name, problem: SHAPE });
  }
}

function parseList(name: OperatorKeyName, text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SettingsError({ key: name, problem: SHAPE });
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_KEYS) throw new SettingsError({ key: name, problem: `must list 1 to ${MAX_KEYS} keys (leave it unset for none)` });
  // The position names a bad entry, never its content.
  const bad = value.findIndex((key) => typeof key !== 'string' || key.trim().length < MIN_LENGTH);
  if (bad >= 0) throw new SettingsError({ key: name, problem: `key #${bad + 1} must be a string of at least ${MIN_LENGTH} characters` });
  return (value as string[]).map((key) => key.trim());
}

export class OperatorKeys {
  readonly #entries: readonly { digest: Buffer; value: true }[];

  constructor(keys: readonly string[]) {
    this.#entries = keys.map((key) => ({ digest: keyDigest(key), value: true }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Whether `key` is one of these keys (constant time over the whole list). */
  admits(key: string): boolean {
    return matchingEntry(this.#entries, key.trim()) === true;
  }
}
