/**
 * Versioned, idempotent migrations of the SQLite store. A migration is frozen once released:
 * later column changes are new versions, never edits of an old one.
 */
import type { Database } from 'better-sqlite3';

interface Migration {
  version: number;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE IF NOT EXISTS llm_calls (
        ts INTEGER NOT NULL,
        scope TEXT NOT NULL,
        operation TEXT NOT NULL,
        event_kind TEXT NOT NULL,
        call_id TEXT NOT NULL,
        logical_call_id TEXT NOT NULL,
        session_id TEXT,
        parent_call_id TEXT,
        tenant_id TEXT,
        meta TEXT,
        source TEXT,
        model TEXT,
        status TEXT NOT NULL,
        error TEXT,
        error_type TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        reasoning_tokens INTEGER,
        usage_source TEXT,
        cost_usd REAL,
        latency_ms REAL,
        ttft_ms REAL,
        attempts INTEGER,
        total_latency_ms REAL,
        reasoning_effort TEXT,
        thinking_observation TEXT,
        request_text TEXT,
        response_text TEXT
      );
      CREATE INDEX IF NOT EXISTS llm_calls_ts ON llm_calls (ts);
      CREATE INDEX IF NOT EXISTS llm_calls_logical_call_id ON llm_calls (logical_call_id);
      CREATE INDEX IF NOT EXISTS llm_calls_tenant_ts ON llm_calls (tenant_id, ts);
    `,
  },
  {
    // Prompt-cache hits as the upstream billed them, and what they saved.
    version: 2,
    sql: `
      ALTER TABLE llm_calls ADD COLUMN cached_prompt_tokens INTEGER;
      ALTER TABLE llm_calls ADD COLUMN cache_saving_usd REAL;
    `,
  },
  { version: 3, sql: 'ALTER TABLE llm_calls ADD COLUMN tool_calls INTEGER;' },
  // Prompt tokens written to the upstream's prompt cache (billed above the input price).
  { version: 4, sql: 'ALTER TABLE llm_calls ADD COLUMN cache_write_prompt_tokens INTEGER;' },
  // Tenants' priority classes, and how long a call waited for admission.
  {
    version: 5,
    sql: `
      ALTER TABLE llm_calls ADD COLUMN priority TEXT;
      ALTER TABLE llm_calls ADD COLUMN wait_ms REAL;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Brings the file to SCHEMA_VERSION in one immediate transaction; a no-op when it is there already. */
export function migrate(db: Database, now: () => number): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const current = (db.prepare('SELECT MAX(version) FROM schema_version').pluck().get() as number | null) ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(`schema version ${current} is newer than this release of @pgw/telemetry-sqlite supports (${SCHEMA_VERSION})`);
    }
    const record = db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)');
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, now());
    }
  }).immediate();
}
