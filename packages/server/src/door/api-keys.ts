/**
 * API keys → the policy each carries: its tenant, its priority class and the models it may call. The
 * table is inline JSON or the path of a file holding it; neither the value nor the file's content is
 * ever echoed (they are keys). A presented key is compared with every configured key in constant
 * time (SHA-256 digests of equal length, `timingSafeEqual`, no early exit), so neither a key's
 * content nor its position in the table shows in the answer time. Keys are kept only as digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SettingsError } from '@pgw/client';
import { PRIORITIES, type KeyBounds, type Priority } from '@pgw/core';
import { z } from 'zod';

/** What a key may do: call for its tenant, at most at its priority, only its models (undefined = all). */
export interface KeyPolicy {
  readonly tenantId: string;
  readonly priority: Priority;
  readonly models?: ReadonlySet<string>;
  /** The MCP servers (`github`) and tools (`fs__read_file`) it may use through `/mcp`; undefined = none. */
  readonly mcp?: ReadonlySet<string>;
  /** A stored key's own bounds and budget (a static key has none). */
  readonly key?: KeyBounds;
}

export type KeyTable = ReadonlyMap<string, KeyPolicy>;

/** A key's list is read into memory and searched per request: bounded like any other input. */
export const MAX_MODELS_PER_KEY = 1000;
const MAX_NAME_LENGTH = 256;

const KEY = 'PGW_SERVER__KEYS';
const SHAPE = 'must be a JSON object { "<api key>": "<tenant id>" | { "tenant": "<tenant id>", "priority"?: "interactive" | "batch", "models"?: ["<model>", …], "mcp"?: ["<server>" | "<server>__<tool>", …] } }';
const name = z.string().min(1).max(MAX_NAME_LENGTH);
const keyObject = z.strictObject({
  tenant: name,
  priority: z.enum(PRIORITIES).optional(),
  models: z.array(name).min(1).max(MAX_MODELS_PER_KEY).optional(),
  mcp: z.array(name).max(MAX_MODELS_PER_KEY).optional(),
});
// Each names the field and never the key: a record's issue path is the key itself, which is secret.
const FIELD_PROBLEM: Readonly<Record<keyof z.infer<typeof keyObject>, string>> = {
  tenant: 'must be a tenant id (a non-empty string of at most 256 characters)',
  priority: `must be one of ${PRIORITIES.join(', ')}`,
  models: `must be a list of 1 to ${MAX_MODELS_PER_KEY} model names (non-empty strings of at most 256 characters)`,
  mcp: `must be a list of at most ${MAX_MODELS_PER_KEY} MCP servers or tools ("github", "fs__read_file")`,
};

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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SettingsError({ key: KEY, problem: SHAPE });
  const pairs = Object.entries(value);
  if (pairs.length === 0) throw new SettingsError({ key: KEY, problem: 'names no API key; leave it unset to run without authentication (loopback only, or --allow-unauthenticated)' });
  if (pairs.some(([key]) => key.length < 8)) throw new SettingsError({ key: KEY, problem: 'every API key must be at least 8 characters' });
  return new Map(pairs.map(([key, entry], index) => [key, policyOf(entry, index + 1)]));
}

/** The policy of the `position`th key (the position, not the key, names it in a problem). */
function policyOf(entry: unknown, position: number): KeyPolicy {
  const where = `key #${position}`;
  if (typeof entry === 'string') {
    if (!name.safeParse(entry).success) throw new SettingsError({ key: KEY, problem: `${where} ${FIELD_PROBLEM.tenant}` });
    return { tenantId: entry, priority: 'interactive' };
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new SettingsError({ key: KEY, problem: `${where} must map to a tenant id or an object { "tenant", "priority", "models", "mcp" }` });
  }
  const parsed = keyObject.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path[0] as keyof typeof FIELD_PROBLEM | undefined;
    const problem = issue.code === 'unrecognized_keys' || field === undefined ? `may hold only ${Object.keys(FIELD_PROBLEM).join(', ')}` : `"${field}" ${FIELD_PROBLEM[field]}`;
    throw new SettingsError({ key: KEY, problem: `${where} ${problem}` });
  }
  const { tenant, priority = 'interactive', models, mcp } = parsed.data;
  return { tenantId: tenant, priority, ...(models !== undefined && { models: new Set(models) }), ...(mcp !== undefined && { mcp: new Set(mcp) }) };
}

/** How every key is kept: its SHA-256 digest (all of one length, so compared in constant time). */
export const keyDigest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/**
 * The value of the entry whose digest is the presented key's, comparing with every entry in constant
 * time and without an early exit, so neither a key's content nor its position shows in the time taken.
 */
export function matchingEntry<T>(entries: readonly { digest: Buffer; value: T }[], key: string): T | undefined {
  const presented = keyDigest(key);
  let found: T | undefined;
  for (const entry of entries) if (timingSafeEqual(entry.digest, presented) && found === undefined) found = entry.value;
  return found;
}

export class ApiKeys {
  #entries: readonly { digest: Buffer; value: KeyPolicy }[] = [];

  constructor(keys: KeyTable) {
    this.replace(keys);
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Whether `key` is one of the table's (the console refuses a tenant's key by name). */
  has(key: string): boolean {
    return matchingEntry(this.#entries, key) !== undefined;
  }

  /** The tenants the keys call for (the console shows their use). */
  tenants(): string[] {
    return [...new Set(this.#entries.map((entry) => entry.value.tenantId))];
  }

  /** Swaps the table: a removed key is refused from its next request, calls in flight go on. */
  replace(keys: KeyTable): void {
    this.#entries = [...keys].map(([key, policy]) => ({ digest: keyDigest(key), value: policy }));
  }

  /**
   * The policy of the key a request presents — `Authorization: Bearer <key>` (OpenAI's clients) or,
   * without an Authorization header, `x-api-key` (Anthropic's) — or undefined for a missing or unknown key.
   */
  policyOf(headers: { authorization?: string | undefined; 'x-api-key'?: string | string[] | undefined }): KeyPolicy | undefined {
    const key = presentedKey(headers);
    return key === undefined ? undefined : matchingEntry(this.#entries, key);
  }
}

/** The key a request presents: `Authorization: Bearer <key>`, or without that header `x-api-key`. */
export function presentedKey({ authorization, 'x-api-key': apiKey }: Parameters<ApiKeys['policyOf']>[0]): string | undefined {
  if (authorization !== undefined) return /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}
