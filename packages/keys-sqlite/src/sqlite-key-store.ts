/**
 * The embedded key store: every key, its audit log and a version counter in one SQLite file. Each
 * write is one transaction (better-sqlite3 is synchronous, so a read-modify-write cannot interleave
 * with another in this process; SQLite's write lock serialises processes). A change is heard at once
 * by every store of the same file in this process (one box, one server); another process on the
 * same file sees it through `version()`, the reader's backstop.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { KeyAuditEntry, KeyChange, KeyState, KeyStore, StoredKey } from '@pgw/core';
import { keyRowOf, storedKeyOf, type KeyRow } from '@pgw/core/internal';

export const KEYS_FILE_NAME = 'keys.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  lookup TEXT NOT NULL,
  prev_lookup TEXT,
  last_used_at INTEGER,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS api_keys_by_lookup ON api_keys (lookup);
CREATE INDEX IF NOT EXISTS api_keys_by_prev_lookup ON api_keys (prev_lookup) WHERE prev_lookup IS NOT NULL;
CREATE INDEX IF NOT EXISTS api_keys_by_created ON api_keys (created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS api_key_audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  key_id TEXT NOT NULL,
  changes TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS api_key_audit_by_key ON api_key_audit (key_id, seq DESC);
CREATE TABLE IF NOT EXISTS api_key_version (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL);
INSERT OR IGNORE INTO api_key_version (one, version) VALUES (1, 0);
`;

interface AuditRow {
  at: number;
  actor: string;
  action: KeyAuditEntry['action'];
  key_id: string;
  changes: string;
}

/** The listeners of each file, across the stores this process opened on it. */
const listenersOf = new Map<string, Set<() => void>>();

export interface SqliteKeyStoreOptions {
  /** The directory of `keys.sqlite` (created when missing). */
  dir: string;
}

export class SqliteKeyStore implements KeyStore {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #own = new Set<() => void>();

  constructor({ dir }: SqliteKeyStoreOptions) {
    mkdirSync(dir, { recursive: true });
    this.file = resolve(join(dir, KEYS_FILE_NAME));
    this.#db = new Database(this.file);
    this.#db.pragma('journal_mode = WAL');
    // Another process holding the write lock is waited for, not failed.
    this.#db.pragma('busy_timeout = 5000');
    this.#db.exec(SCHEMA);
  }

  async insert(key: StoredKey, audit: KeyAuditEntry): Promise<void> {
    const row = keyRowOf(key);
    this.#db.transaction(() => {
      this.#db
        .prepare('INSERT INTO api_keys (id, tenant, state, created_at, lookup, prev_lookup, last_used_at, record) VALUES (@id, @tenant, @state, @created_at, @lookup, @prev_lookup, @last_used_at, @record)')
        .run(row);
      this.#written(audit);
    })();
    this.#announce();
  }

  async update(id: string, change: KeyChange): Promise<StoredKey | undefined> {
    const result = this.#db.transaction(() => {
      const current = this.#read(id);
      if (current === undefined) return { key: undefined, changed: false };
      const next = change(current);
      if (next === undefined) return { key: current, changed: false };
      const row = keyRowOf({ ...next.key, lastUsedAt: current.lastUsedAt });
      this.#db.prepare('UPDATE api_keys SET tenant = @tenant, state = @state, lookup = @lookup, prev_lookup = @prev_lookup, record = @record WHERE id = @id').run(row);
      this.#written(next.audit);
      return { key: storedKeyOf(row), changed: true };
    }).immediate();
    if (result.changed) this.#announce();
    return result.key;
  }

  async get(id: string): Promise<StoredKey | undefined> {
    return this.#read(id);
  }

  async findByLookup(lookup: string): Promise<StoredKey[]> {
    const rows = this.#db.prepare('SELECT record, last_used_at FROM api_keys WHERE lookup = ? UNION SELECT record, last_used_at FROM api_keys WHERE prev_lookup = ?').all(lookup, lookup) as KeyRow[];
    return rows.map(storedKeyOf);
  }

  async list({ tenant, state, limit }: { tenant?: string; state?: KeyState; limit: number }): Promise<StoredKey[]> {
    const rows = this.#db
      .prepare('SELECT record, last_used_at FROM api_keys WHERE (@tenant IS NULL OR tenant = @tenant) AND (@state IS NULL OR state = @state) ORDER BY created_at DESC, id DESC LIMIT @limit')
      .all({ tenant: tenant ?? null, state: state ?? null, limit }) as KeyRow[];
    return rows.map(storedKeyOf);
  }

  async auditLog({ keyId, limit }: { keyId?: string; limit: number }): Promise<KeyAuditEntry[]> {
    const rows = this.#db.prepare('SELECT at, actor, action, key_id, changes FROM api_key_audit WHERE (@keyId IS NULL OR key_id = @keyId) ORDER BY seq DESC LIMIT @limit').all({ keyId: keyId ?? null, limit }) as AuditRow[];
    return rows.map((row) => ({ at: row.at, actor: row.actor, action: row.action, keyId: row.key_id, changes: JSON.parse(row.changes) as Record<string, unknown> }));
  }

  async touch(id: string, at: number): Promise<void> {
    this.#db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
  }

  async version(): Promise<number> {
    return (this.#db.prepare('SELECT version FROM api_key_version WHERE one = 1').get() as { version: number }).version;
  }

  onChange(listener: () => void): () => void {
    // A listener object of its own, so the same function subscribed twice is two subscriptions.
    const entry = () => listener();
    const shared = listenersOf.get(this.file) ?? new Set();
    listenersOf.set(this.file, shared);
    shared.add(entry);
    this.#own.add(entry);
    return () => this.#unsubscribe(entry);
  }

  async close(): Promise<void> {
    for (const entry of [...this.#own]) this.#unsubscribe(entry);
    if (this.#db.open) this.#db.close();
  }

  #unsubscribe(entry: () => void): void {
    this.#own.delete(entry);
    const shared = listenersOf.get(this.file);
    shared?.delete(entry);
    if (shared?.size === 0) listenersOf.delete(this.file);
  }

  #read(id: string): StoredKey | undefined {
    const row = this.#db.prepare('SELECT record, last_used_at FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
    return row === undefined ? undefined : storedKeyOf(row);
  }

  /** The audit row and the version's move, inside the writing transaction. */
  #written(audit: KeyAuditEntry): void {
    this.#db.prepare('INSERT INTO api_key_audit (at, actor, action, key_id, changes) VALUES (?, ?, ?, ?, ?)').run(audit.at, audit.actor, audit.action, audit.keyId, JSON.stringify(audit.changes));
    this.#db.prepare('UPDATE api_key_version SET version = version + 1 WHERE one = 1').run();
  }

  /** After the commit, on a later turn: a listener's failure is no failure of the write. */
  #announce(): void {
    for (const listener of [...(listenersOf.get(this.file) ?? [])]) queueMicrotask(listener);
  }
}
