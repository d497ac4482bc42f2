/**
 * The embedded engine: every job's queue, item states and results in one SQLite file, driven by one
 * process per job. A result is written in the same transaction as its item's state change, so an
 * item is either still to run or recorded exactly once, whenever the process dies.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PolyGatewayError } from '@pgw/client';
import { isSuccess, type BatchEngine, type BatchFileStore, type StoredFile, type ItemResponse, type ItemResult, type JobProgress, type JobSpec, type JobStatus, type PauseReason } from '@pgw/core';
import { resultOf } from '@pgw/core/internal';
import type { BatchItem } from '@pgw/core';

/** Another live process drives the job: two drivers of one SQLite job would run its items twice. */
export class BatchJobBusyError extends PolyGatewayError {
  static override readonly kind: string = 'BatchJobBusyError';
  readonly job: string;
  readonly ownerPid: number;

  constructor(job: string, ownerPid: number) {
    super({ message: `batch job ${job} is driven by process ${ownerPid}; stop it first or use the bullmq engine for several workers` });
    this.job = job;
    this.ownerPid = ownerPid;
  }
}

export const BATCH_FILE_NAME = 'batch.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  status TEXT NOT NULL,
  pause_reason TEXT,
  budget_usd REAL,
  spent_usd REAL NOT NULL DEFAULT 0,
  reserved_usd REAL NOT NULL DEFAULT 0,
  owner_pid INTEGER,
  meta TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS items (
  job TEXT NOT NULL,
  custom_id TEXT NOT NULL,
  line INTEGER NOT NULL,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 1,
  status_code INTEGER,
  request_id TEXT,
  response TEXT,
  cost_usd REAL,
  PRIMARY KEY (job, custom_id)
);
CREATE INDEX IF NOT EXISTS items_by_state ON items (job, state, line);
CREATE INDEX IF NOT EXISTS jobs_by_tenant ON jobs (tenant_id);
CREATE TABLE IF NOT EXISTS files (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  purpose TEXT NOT NULL,
  filename TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  content BLOB NOT NULL
);
`;

interface JobRow {
  id: string;
  tenant_id: string;
  status: JobStatus;
  pause_reason: PauseReason | null;
  budget_usd: number | null;
  spent_usd: number;
  reserved_usd: number;
  owner_pid: number | null;
  meta: string;
}

interface ItemRow {
  custom_id: string;
  line: number;
  url: string;
  body: string;
  attempt: number;
  status_code: number;
  request_id: string;
  response: string;
  cost_usd: number | null;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export interface SqliteEngineOptions {
  /** The directory of the batch file (`PGW_BATCH__DIR`, default `.pgw/batch`). */
  dir: string;
}

export class SqliteBatchEngine implements BatchEngine, BatchFileStore {
  readonly path: string;
  readonly #db: Database.Database;
  /** Prepared once: every item runs the same few statements. */
  readonly #statements = new Map<string, Database.Statement>();

  constructor(options: SqliteEngineOptions) {
    mkdirSync(options.dir, { recursive: true });
    this.path = join(options.dir, BATCH_FILE_NAME);
    this.#db = new Database(this.path, { timeout: 5_000 });
    // WAL with NORMAL sync: a committed transaction survives the death of the process (not of the machine).
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.exec(SCHEMA);
  }

  async open(spec: JobSpec, items: readonly BatchItem[]): Promise<JobProgress> {
    this.#db.transaction(() => {
      const known = this.#job(spec.id);
      if (known?.owner_pid != null && known.owner_pid !== process.pid && isAlive(known.owner_pid)) {
        throw new BatchJobBusyError(spec.id, known.owner_pid);
      }
      if (known === undefined) {
        this.#sql('INSERT INTO jobs (id, tenant_id, status, budget_usd, owner_pid, meta) VALUES (?, ?, ?, ?, ?, ?)')
          .run(spec.id, spec.tenantId, 'running', spec.budgetUsd ?? null, process.pid, JSON.stringify(spec.meta ?? {}));
        const insert = this.#sql("INSERT INTO items (job, custom_id, line, url, body, state) VALUES (?, ?, ?, ?, ?, 'pending')");
        for (const item of items) insert.run(spec.id, item.customId, item.line, item.url, JSON.stringify(item.body));
        return;
      }
      // The previous driver is dead: what it left running may have reached the upstream, and runs again.
      this.#sql("UPDATE items SET state = 'pending' WHERE job = ? AND state = 'running'").run(spec.id);
      const resumed = known.status === 'paused' ? 'running' : known.status;
      this.#sql('UPDATE jobs SET status = ?, pause_reason = NULL, reserved_usd = 0, owner_pid = ?, budget_usd = COALESCE(?, budget_usd) WHERE id = ?')
        .run(resumed, process.pid, spec.budgetUsd ?? null, spec.id);
    })();
    return (await this.progress(spec.id))!;
  }

  async claim(job: string, max: number): Promise<BatchItem[]> {
    const rows = this.#db.transaction(() => {
      if (this.#job(job)?.status !== 'running') return [];
      return this.#sql(
          `UPDATE items SET state = 'running' WHERE rowid IN
             (SELECT rowid FROM items WHERE job = ? AND state = 'pending' ORDER BY line LIMIT ?)
           RETURNING custom_id, line, url, body`,
        )
        .all(job, max) as Pick<ItemRow, 'custom_id' | 'line' | 'url' | 'body'>[];
    })();
    return rows
      .map((row) => ({ customId: row.custom_id, line: row.line, url: row.url, body: JSON.parse(row.body) as Record<string, unknown> }))
      .sort((a, b) => a.line - b.line);
  }

  async reserve(job: string, worstCaseUsd: number): Promise<boolean> {
    return this.#db.transaction(() => {
      const row = this.#job(job);
      if (row === undefined) return false;
      if (row.budget_usd === null) return true;
      if (row.spent_usd + row.reserved_usd + worstCaseUsd > row.budget_usd) return false;
      this.#sql('UPDATE jobs SET reserved_usd = reserved_usd + ? WHERE id = ?').run(worstCaseUsd, job);
      return true;
    })();
  }

  async record(job: string, customId: string, response: ItemResponse, reservedUsd: number): Promise<void> {
    this.#db.transaction(() => {
      const state = isSuccess(response.statusCode) ? 'done' : 'failed';
      const changed = this.#sql(
          `UPDATE items SET state = ?, status_code = ?, request_id = ?, response = ?, cost_usd = ?
           WHERE job = ? AND custom_id = ? AND state = 'running'`,
        )
        .run(state, response.statusCode, response.requestId, JSON.stringify(response.body), response.costUsd ?? null, job, customId).changes;
      if (changed === 0) return;
      this.#sql('UPDATE jobs SET spent_usd = spent_usd + ?, reserved_usd = MAX(0, reserved_usd - ?) WHERE id = ?')
        .run(response.costUsd ?? 0, reservedUsd, job);
    })();
  }

  async release(job: string, customIds: readonly string[], reservedUsd: number): Promise<void> {
    this.#db.transaction(() => {
      const back = this.#sql("UPDATE items SET state = 'pending' WHERE job = ? AND custom_id = ? AND state = 'running'");
      for (const customId of customIds) back.run(job, customId);
      this.#sql('UPDATE jobs SET reserved_usd = MAX(0, reserved_usd - ?) WHERE id = ?').run(reservedUsd, job);
    })();
  }

  async setStatus(job: string, status: JobStatus, pauseReason?: PauseReason): Promise<void> {
    this.#sql('UPDATE jobs SET status = ?, pause_reason = ? WHERE id = ?').run(status, pauseReason ?? null, job);
  }

  async retryFailed(job: string): Promise<number> {
    return this.#db.transaction(() => {
      const count = this.#sql(
          `UPDATE items SET state = 'pending', attempt = attempt + 1, status_code = NULL, request_id = NULL, response = NULL, cost_usd = NULL
           WHERE job = ? AND state = 'failed'`,
        )
        .run(job).changes;
      if (count > 0) this.#sql("UPDATE jobs SET status = 'paused', pause_reason = NULL WHERE id = ? AND status = 'completed'").run(job);
      return count;
    })();
  }

  async progress(job: string): Promise<JobProgress | undefined> {
    const row = this.#job(job);
    return row === undefined ? undefined : this.#progressOf(row);
  }

  #progressOf(row: JobRow): JobProgress {
    const job = row.id;
    const counts = Object.fromEntries(
      (this.#sql('SELECT state, COUNT(*) AS n FROM items WHERE job = ? GROUP BY state').all(job) as { state: string; n: number }[]).map(
        ({ state, n }) => [state, n],
      ),
    ) as Record<string, number | undefined>;
    const [pending, running, done, failed] = ['pending', 'running', 'done', 'failed'].map((state) => counts[state] ?? 0) as [number, number, number, number];
    return {
      job,
      tenantId: row.tenant_id,
      status: row.status,
      ...(row.pause_reason !== null && { pauseReason: row.pause_reason }),
      total: pending + running + done + failed,
      done,
      failed,
      inFlight: running,
      costUsd: row.spent_usd,
      ...(row.budget_usd !== null && { budgetUsd: row.budget_usd }),
      meta: JSON.parse(row.meta) as Record<string, string>,
    };
  }

  async results(job: string): Promise<ItemResult[]> {
    const rows = this.#sql("SELECT custom_id, line, attempt, status_code, request_id, response, cost_usd FROM items WHERE job = ? AND state IN ('done', 'failed') ORDER BY line")
      .all(job) as ItemRow[];
    return rows.map((row) => resultOf(row, JSON.parse(row.response) as unknown));
  }

  async annotate(job: string, meta: Readonly<Record<string, string>>): Promise<void> {
    this.#sql('UPDATE jobs SET meta = json_patch(meta, ?) WHERE id = ?').run(JSON.stringify(meta), job);
  }

  async putFile(file: StoredFile, content: Uint8Array): Promise<void> {
    this.#sql('INSERT INTO files (id, tenant_id, purpose, filename, bytes, created_at, content) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(file.id, file.tenantId, file.purpose, file.filename, file.bytes, file.createdAt, Buffer.from(content.buffer, content.byteOffset, content.byteLength));
  }

  async file(tenantId: string, id: string): Promise<StoredFile | undefined> {
    const row = this.#sql('SELECT id, tenant_id AS tenantId, purpose, filename, bytes, created_at AS createdAt FROM files WHERE id = ? AND tenant_id = ?')
      .get(id, tenantId) as StoredFile | undefined;
    return row;
  }

  async fileContent(tenantId: string, id: string): Promise<Uint8Array | undefined> {
    const row = this.#sql('SELECT content FROM files WHERE id = ? AND tenant_id = ?').get(id, tenantId) as { content: Buffer } | undefined;
    return row?.content;
  }

  async jobs(tenantId: string | undefined, options: { after?: string; limit: number }): Promise<JobProgress[]> {
    const rows = this.#sql(
        `SELECT * FROM jobs WHERE (@tenant IS NULL OR tenant_id = @tenant)
           AND rowid < COALESCE((SELECT rowid FROM jobs WHERE id = @after AND (@tenant IS NULL OR tenant_id = @tenant)), 9223372036854775807)
         ORDER BY rowid DESC LIMIT @limit`,
      )
      .all({ tenant: tenantId ?? null, after: options.after ?? null, limit: options.limit }) as JobRow[];
    return rows.map((row) => this.#progressOf(row));
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    this.#sql('UPDATE jobs SET owner_pid = NULL WHERE owner_pid = ?').run(process.pid);
    this.#db.close();
  }

  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #job(job: string): JobRow | undefined {
    return this.#sql('SELECT * FROM jobs WHERE id = ?').get(job) as JobRow | undefined;
  }
}
