/**
 * The fleet key store: every key, its audit log and a version counter in PostgreSQL, shared by every
 * server. A write is one transaction that also `NOTIFY`s the store's channel (delivered at commit),
 * so every server LISTENing drops its cache within the round trip; a periodic version check is the
 * backstop for a notification lost while a listening connection was down (and a reconnect counts as
 * a change: something may have been missed).
 */
import pg from 'pg';
import type { KeyAuditEntry, KeyChange, KeyState, KeyStore, StoredKey } from '@pgw/core';
import { inTransaction, keyRowOf, storedKeyOf, type KeyRow } from '@pgw/core/internal';

export const DEFAULT_KEYS_SCHEMA = 'pgw_keys';
const DEFAULT_BACKSTOP_MS = 5000;
const RECONNECT_MS = 1000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

export interface PgKeyStoreOptions {
  dsn: string;
  /** The schema of its tables (created when missing); lower-case letters, digits and `_`. */
  schema?: string;
  /** How often the version is checked besides the notifications. */
  backstopMs?: number;
}

interface AuditRow {
  at: string;
  actor: string;
  action: KeyAuditEntry['action'];
  key_id: string;
  changes: string;
}

export class PgKeyStore implements KeyStore {
  readonly #pool: pg.Pool;
  readonly #dsn: string;
  readonly #schema: string;
  readonly #channel: string;
  readonly #backstopMs: number;
  readonly #listeners = new Set<() => void>();
  #listening: pg.Client | undefined;
  #reconnect: NodeJS.Timeout | undefined;
  #backstop: NodeJS.Timeout | undefined;
  #seenVersion: number | undefined;
  #closed = false;

  private constructor({ dsn, schema = DEFAULT_KEYS_SCHEMA, backstopMs = DEFAULT_BACKSTOP_MS }: PgKeyStoreOptions) {
    if (!SCHEMA_NAME.test(schema)) throw new RangeError('schema must be lower-case letters, digits and _ (at most 48), starting with a letter or _');
    this.#dsn = dsn;
    this.#schema = pg.escapeIdentifier(schema);
    this.#channel = pg.escapeIdentifier(`${schema}_changed`);
    this.#backstopMs = backstopMs;
    this.#pool = new pg.Pool({ connectionString: dsn, max: 4 });
    // An idle client's broken connection is reported here; unheard, it would end the process.
    this.#pool.on('error', () => undefined);
  }

  /** Opens the store: its tables created, its channel listened to, before it answers. */
  static async open(options: PgKeyStoreOptions): Promise<PgKeyStore> {
    const store = new PgKeyStore(options);
    try {
      await store.#migrate();
      await store.#listen();
      store.#seenVersion = await store.version();
      store.#backstop = setInterval(() => void store.#checkVersion(), store.#backstopMs);
      store.#backstop.unref();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  async insert(key: StoredKey, audit: KeyAuditEntry): Promise<void> {
    const row = keyRowOf(key);
    await inTransaction(
      () => this.#pool.connect(),
      async (client) => {
        await client.query(`INSERT INTO ${this.#schema}.api_keys (id, tenant, state, created_at, lookup, prev_lookup, last_used_at, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
          row.id,
          row.tenant,
          row.state,
          row.created_at,
          row.lookup,
          row.prev_lookup,
          row.last_used_at,
          row.record,
        ]);
        await this.#written(client, audit);
      },
    );
  }

  async update(id: string, change: KeyChange): Promise<StoredKey | undefined> {
    return inTransaction(
      () => this.#pool.connect(),
      async (client) => {
        // FOR UPDATE: a concurrent change of the same key waits here, then reads this one's result.
        const { rows } = await client.query<KeyRow>(`SELECT record, last_used_at FROM ${this.#schema}.api_keys WHERE id = $1 FOR UPDATE`, [id]);
        if (rows[0] === undefined) return undefined;
        const current = storedKeyOf(rows[0]);
        const next = change(current);
        if (next === undefined) return current;
        const row = keyRowOf({ ...next.key, lastUsedAt: current.lastUsedAt });
        await client.query(`UPDATE ${this.#schema}.api_keys SET tenant = $2, state = $3, lookup = $4, prev_lookup = $5, record = $6 WHERE id = $1`, [id, row.tenant, row.state, row.lookup, row.prev_lookup, row.record]);
        await this.#written(client, next.audit);
        return storedKeyOf(row);
      },
    );
  }

  async get(id: string): Promise<StoredKey | undefined> {
    const { rows } = await this.#pool.query<KeyRow>(`SELECT record, last_used_at FROM ${this.#schema}.api_keys WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : storedKeyOf(rows[0]);
  }

  async findByLookup(lookup: string): Promise<StoredKey[]> {
    const { rows } = await this.#pool.query<KeyRow>(
      `SELECT record, last_used_at FROM ${this.#schema}.api_keys WHERE lookup = $1 UNION ALL SELECT record, last_used_at FROM ${this.#schema}.api_keys WHERE prev_lookup = $1 AND lookup <> $1`,
      [lookup],
    );
    return rows.map(storedKeyOf);
  }

  async list({ tenant, state, limit }: { tenant?: string; state?: KeyState; limit: number }): Promise<StoredKey[]> {
    const { rows } = await this.#pool.query<KeyRow>(
      `SELECT record, last_used_at FROM ${this.#schema}.api_keys WHERE ($1::text IS NULL OR tenant = $1) AND ($2::text IS NULL OR state = $2) ORDER BY created_at DESC, id DESC LIMIT $3`,
      [tenant ?? null, state ?? null, limit],
    );
    return rows.map(storedKeyOf);
  }

  async auditLog({ keyId, limit }: { keyId?: string; limit: number }): Promise<KeyAuditEntry[]> {
    const { rows } = await this.#pool.query<AuditRow>(`SELECT at, actor, action, key_id, changes FROM ${this.#schema}.api_key_audit WHERE ($1::text IS NULL OR key_id = $1) ORDER BY seq DESC LIMIT $2`, [keyId ?? null, limit]);
    return rows.map((row) => ({ at: Number(row.at), actor: row.actor, action: row.action, keyId: row.key_id, changes: JSON.parse(row.changes) as Record<string, unknown> }));
  }

  async touch(id: string, at: number): Promise<void> {
    await this.#pool.query(`UPDATE ${this.#schema}.api_keys SET last_used_at = $2 WHERE id = $1`, [id, at]);
  }

  async version(): Promise<number> {
    const { rows } = await this.#pool.query<{ version: string }>(`SELECT version FROM ${this.#schema}.api_key_version WHERE one = 1`);
    return Number(rows[0]!.version);
  }

  onChange(listener: () => void): () => void {
    const entry = () => listener();
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#backstop);
    clearTimeout(this.#reconnect);
    this.#listeners.clear();
    const listening = this.#listening;
    this.#listening = undefined;
    await Promise.allSettled([listening?.end(), this.#pool.end()]);
  }

  async #migrate(): Promise<void> {
    await inTransaction(
      () => this.#pool.connect(),
      async (client) => {
        // Servers starting together would race on CREATE … IF NOT EXISTS: one at a time per schema.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pgw_keys:${this.#schema}`]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.#schema}`);
        await client.query(`
          CREATE TABLE IF NOT EXISTS ${this.#schema}.api_keys (
            id text PRIMARY KEY,
            tenant text NOT NULL,
            state text NOT NULL,
            created_at bigint NOT NULL,
            lookup text NOT NULL,
            prev_lookup text,
            last_used_at bigint,
            record text NOT NULL
          );
          CREATE INDEX IF NOT EXISTS api_keys_by_lookup ON ${this.#schema}.api_keys (lookup);
          CREATE INDEX IF NOT EXISTS api_keys_by_prev_lookup ON ${this.#schema}.api_keys (prev_lookup) WHERE prev_lookup IS NOT NULL;
          CREATE INDEX IF NOT EXISTS api_keys_by_created ON ${this.#schema}.api_keys (created_at DESC, id DESC);
          CREATE TABLE IF NOT EXISTS ${this.#schema}.api_key_audit (
            seq bigserial PRIMARY KEY,
            at bigint NOT NULL,
            actor text NOT NULL,
            action text NOT NULL,
            key_id text NOT NULL,
            changes text NOT NULL
          );
          CREATE INDEX IF NOT EXISTS api_key_audit_by_key ON ${this.#schema}.api_key_audit (key_id, seq DESC);
          CREATE TABLE IF NOT EXISTS ${this.#schema}.api_key_version (one int PRIMARY KEY CHECK (one = 1), version bigint NOT NULL);
          INSERT INTO ${this.#schema}.api_key_version (one, version) VALUES (1, 0) ON CONFLICT DO NOTHING;
        `);
      },
    );
  }

  /** The audit row, the version's move and the notification, inside the writing transaction. */
  async #written(client: pg.PoolClient, audit: KeyAuditEntry): Promise<void> {
    await client.query(`INSERT INTO ${this.#schema}.api_key_audit (at, actor, action, key_id, changes) VALUES ($1, $2, $3, $4, $5)`, [audit.at, audit.actor, audit.action, audit.keyId, JSON.stringify(audit.changes)]);
    await client.query(`UPDATE ${this.#schema}.api_key_version SET version = version + 1 WHERE one = 1`);
    await client.query(`NOTIFY ${this.#channel}`);
  }

  /** A connection of its own, held for LISTEN; when it breaks, another after a pause (and a change is announced: one may have been missed). */
  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#dsn });
    client.on('notification', () => this.#announce());
    client.on('error', () => this.#relisten(client));
    client.on('end', () => this.#relisten(client));
    await client.connect();
    await client.query(`LISTEN ${this.#channel}`);
    this.#listening = client;
  }

  #relisten(broken: pg.Client): void {
    if (this.#closed || this.#listening !== broken) return;
    this.#listening = undefined;
    void broken.end().catch(() => undefined);
    this.#listenLater();
  }

  #listenLater(): void {
    this.#reconnect = setTimeout(() => {
      if (this.#closed) return;
      this.#listen().then(
        () => this.#announce(),
        () => this.#listenLater(),
      );
    }, RECONNECT_MS);
    this.#reconnect.unref();
  }

  async #checkVersion(): Promise<void> {
    try {
      const version = await this.version();
      if (version !== this.#seenVersion) {
        this.#seenVersion = version;
        this.#announce();
      }
    } catch {
      // The database is unreachable: the next beat tries again; the readers keep what they hold.
    }
  }

  #announce(): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the others still hear.
      }
    }
  }
}
