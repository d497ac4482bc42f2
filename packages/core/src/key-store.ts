/**
 * The key store port (docs/architecture.md#key-store): the door's API keys kept as data — each a
 * record with a stable id, its bounds and its state — so keys are created, rotated and revoked at run
 * time across a fleet. A store keeps only salted digests of the keys: it never sees a key. Every
 * adapter passes `keyStoreContract` in @pgw/testkit.
 */
import type { KeyBudgetWindow } from './keys.js';
import type { Priority } from './tenants.js';

export const KEY_STATES = ['active', 'rotating', 'revoked'] as const;
export type KeyState = (typeof KEY_STATES)[number];

/** How one key is recognised without being kept: the lookup column finds the row, the digest proves the key. */
export interface KeySecret {
  /** Non-secret characters of the key (after `pgw_sk_`): an indexed column, so a request reads one row, not the table. */
  readonly lookup: string;
  readonly salt: Uint8Array;
  /** HMAC-SHA-256 of the key under `salt`. */
  readonly digest: Uint8Array;
}

export interface StoredKey {
  /** `key_` + 16 hex characters; stable across rotations. */
  readonly id: string;
  readonly name: string;
  readonly tenant: string;
  /** Undefined-free: null = every model (or every MCP server). */
  readonly models: readonly string[] | null;
  readonly mcp: readonly string[] | null;
  readonly priority: Priority;
  /** 0 = unbounded. */
  readonly limits: { readonly rpm: number; readonly tpm: number; readonly maxConcurrency: number };
  readonly budget: { readonly usd: number; readonly window: KeyBudgetWindow } | null;
  /** Epoch ms; null = never. */
  readonly expiresAt: number | null;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly state: KeyState;
  /** The key's first characters (`pgw_sk_abcd`), for people to recognise it. */
  readonly prefix: string;
  readonly secret: KeySecret;
  /** The key a rotation replaced, valid until `validUntil` (epoch ms). */
  readonly previous: (KeySecret & { readonly validUntil: number }) | null;
}

export const KEY_AUDIT_ACTIONS = ['create', 'update', 'rotate', 'revoke'] as const;
export type KeyAuditAction = (typeof KEY_AUDIT_ACTIONS)[number];

/** One change of a key: who (an admin key's fingerprint, never a key), what, when. */
export interface KeyAuditEntry {
  readonly at: number;
  readonly actor: string;
  readonly action: KeyAuditAction;
  readonly keyId: string;
  /** The fields changed, with their new values (never a secret). */
  readonly changes: Readonly<Record<string, unknown>>;
}

/** A read-modify-write of one key: the new record and its audit row, or undefined to change nothing. */
export type KeyChange = (current: StoredKey) => { key: StoredKey; audit: KeyAuditEntry } | undefined;

export interface KeyStore {
  /** Adds a key and its audit row in one transaction. */
  insert(key: StoredKey, audit: KeyAuditEntry): Promise<void>;
  /** Applies `change` to the current record in one transaction (no lost update); the record after, or undefined when `id` is unknown. */
  update(id: string, change: KeyChange): Promise<StoredKey | undefined>;
  get(id: string): Promise<StoredKey | undefined>;
  /** Every key whose current or previous secret has this lookup (a handful at most). */
  findByLookup(lookup: string): Promise<StoredKey[]>;
  /** Newest first. */
  list(filter: { tenant?: string; state?: KeyState; limit: number }): Promise<StoredKey[]>;
  /** Newest first. */
  auditLog(filter: { keyId?: string; limit: number }): Promise<KeyAuditEntry[]>;
  /** Records a key's last use (no audit row, no change signal: it changes no decision). */
  touch(id: string, at: number): Promise<void>;
  /** A number that moves on every insert and update, for a reader's backstop check. */
  version(): Promise<number>;
  /** Calls `listener` after a change by any writer the adapter can hear (itself, or every server on a shared store); returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}
