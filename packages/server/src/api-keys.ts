/**
 * API keys → tenants. The table is inline JSON or the path of a file holding it; neither the value
 * nor the file's content is ever echoed (they are keys). A presented key is compared with every
 * configured key in constant time (SHA-256 digests of equal length, `timingSafeEqual`, no early
 * exit), so neither a key's content nor its position in the table shows in the answer time. Keys
 * are kept only as digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SettingsError } from '@pgw/client';
import { z } from 'zod';

export type KeyTable = ReadonlyMap<string, string>;

const KEY = 'PGW_SERVER__KEYS';
const SHAPE = 'must be a JSON object { "<api key>": "<tenant id>" }';
// Messages only: an issue of a record repeats the offending key, which is secret.
const table = z.record(z.string(), z.unknown(), { error: SHAPE }).superRefine((entries, context) => {
  const pairs = Object.entries(entries);
  if (pairs.length === 0) context.addIssue({ code: 'custom', message: 'names no API key; leave it unset to run without authentication (loopback only, or --allow-unauthenticated)' });
  if (pairs.some(([key]) => key.length < 8)) context.addIssue({ code: 'custom', message: 'every API key must be at least 8 characters' });
  if (pairs.some(([, tenant]) => typeof tenant !== 'string' || tenant === '' || tenant.length > 256)) {
    context.addIssue({ code: 'custom', message: 'every key must map to a tenant id (a non-empty string of at most 256 characters)' });
  }
});

/** The key table of `PGW_SERVER__KEYS`: unset = no keys; `{}` is refused (it would mean no authentication). */
export function readApiKeys(raw: string | undefined): { keys: KeyTable; file?: string } {
  if (raw === undefined || raw.trim() === '') return { keys: new Map() };
  const value = raw.trim();
  if (value.startsWith('{')) return { keys: parseTable(value) };
  return { keys: parseTable(readTableFile(value)), file: value };
}

/** Reads the key file again (SIGHUP). */
export function readKeyFile(file: string): KeyTable {
  return parseTable(readTableFile(file));
}

function readTableFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new SettingsError({ key: KEY, problem: 'is neither a JSON object nor the path of a readable file' });
  }
}

function parseTable(text: string): KeyTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SettingsError({ key: KEY, problem: SHAPE });
  }
  const parsed = table.safeParse(value);
  if (!parsed.success) throw new SettingsError({ key: KEY, problem: parsed.error.issues[0]!.message });
  return new Map(Object.entries(parsed.data) as [string, string][]);
}

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

export class ApiKeys {
  #entries: readonly { digest: Buffer; tenantId: string }[] = [];

  constructor(keys: KeyTable) {
    this.replace(keys);
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Swaps the table: a removed key is refused from its next request, calls in flight go on. */
  replace(keys: KeyTable): void {
    this.#entries = [...keys].map(([key, tenantId]) => ({ digest: digest(key), tenantId }));
  }

  /**
   * The tenant of the key a request presents — `Authorization: Bearer <key>` (OpenAI's clients) or,
   * without an Authorization header, `x-api-key` (Anthropic's) — or undefined for a missing or unknown key.
   */
  tenantOf(headers: { authorization?: string | undefined; 'x-api-key'?: string | string[] | undefined }): string | undefined {
    const key = presentedKey(headers);
    if (key === undefined) return undefined;
    const presented = digest(key);
    let tenant: string | undefined;
    for (const entry of this.#entries) if (timingSafeEqual(entry.digest, presented) && tenant === undefined) tenant = entry.tenantId;
    return tenant;
  }
}

function presentedKey({ authorization, 'x-api-key': apiKey }: Parameters<ApiKeys['tenantOf']>[0]): string | undefined {
  if (authorization !== undefined) return /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}
