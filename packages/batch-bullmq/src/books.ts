/**
 * The fleet engine's books in PostgreSQL: each job's row (status, budget: spent and reserved), its
 * items, and their results keyed by (job, custom_id, attempt). A result is inserted with ON CONFLICT
 * DO NOTHING in the transaction that settles its cost, so a result recorded twice is billed once.
 */
import type { BatchItem, ItemResponse, ItemResult, JobSpec, JobStatus, PauseReason } from '@pgw/core';
import { resultOf } from '@pgw/core/internal';
import { inTransaction } from '@pgw/core/internal';
import type pg from 'pg';
import { createTables, type TableNames } from './pg-tables.js';
import type { QueuedItem } from './queues.js';

/** A job's row with its item counts, as `progress` answers it. */
export interface JobBooks {
  tenantId: string;
  status: JobStatus;
  pauseReason?: PauseReason;
  budgetUsd?: number;
  spentUsd: number;
  meta: Record<string, string>;
  total: number;
  done: number;
  failed: number;
}

export class BatchBooks {
  readonly #pool: pg.Pool;
  readonly #schema: string | undefined;
  readonly #table: TableNames;
  #ready: Promise<void> | undefined;

  constructor(pool: pg.Pool, schema: string | undefined, table: TableNames) {
    this.#pool = pool;
    this.#schema = schema;
    this.#table = table;
  }

  tables(): Promise<void> {
    this.#ready ??= createTables(this.#pool, this.#schema, [
      `CREATE TABLE IF NOT EXISTS ${this.#table('jobs')} (
        id text PRIMARY KEY, tenant_id text NOT NULL, status text NOT NULL, pause_reason text, budget_usd double precision,
        spent_usd double precision NOT NULL DEFAULT 0, reserved_usd double precision NOT NULL DEFAULT 0, meta jsonb NOT NULL DEFAULT '{}')`,
      `CREATE TABLE IF NOT EXISTS ${this.#table('items')} (
        job text NOT NULL, custom_id text NOT NULL, line integer NOT NULL, url text NOT NULL, body jsonb NOT NULL,
        attempt integer NOT NULL DEFAULT 1, PRIMARY KEY (job, custom_id))`,
      `CREATE TABLE IF NOT EXISTS ${this.#table('results')} (
        job text NOT NULL, custom_id text NOT NULL, attempt integer NOT NULL, status_code integer NOT NULL, request_id text NOT NULL,
        response jsonb NOT NULL, cost_usd double precision, PRIMARY KEY (job, custom_id, attempt))`,
      // The creation order the server's listing pages by (newest first), added to tables of earlier versions too.
      `ALTER TABLE ${this.#table('jobs')} ADD COLUMN IF NOT EXISTS seq bigserial`,
    ]);
    return this.#ready;
  }

  /** Registers a new job with its items, or reopens a known one: paused becomes running, the budget raised when given. */
  async open(spec: JobSpec, items: readonly BatchItem[]): Promise<void> {
    await this.tables();
    await inTransaction(
      () => this.#pool.connect(),
      async (client) => {
        const created = await client.query(
          `INSERT INTO ${this.#table('jobs')} (id, tenant_id, status, budget_usd, meta) VALUES ($1, $2, 'running', $3, $4) ON CONFLICT (id) DO NOTHING`,
          [spec.id, spec.tenantId, spec.budgetUsd ?? null, JSON.stringify(spec.meta ?? {})],
        );
        if (created.rowCount === 1) {
          await client.query(
            `INSERT INTO ${this.#table('items')} (job, custom_id, line, url, body)
             SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::jsonb[]) ON CONFLICT DO NOTHING`,
            [spec.id, items.map((item) => item.customId), items.map((item) => item.line), items.map((item) => item.url), items.map((item) => JSON.stringify(item.body))],
          );
          return;
        }
        await client.query(
          `UPDATE ${this.#table('jobs')} SET status = CASE WHEN status = 'paused' THEN 'running' ELSE status END, pause_reason = NULL,
             budget_usd = COALESCE($2, budget_usd) WHERE id = $1`,
          [spec.id, spec.budgetUsd ?? null],
        );
      },
    );
  }

  /** Every item without a result for its attempt, in input order. */
  async unrecorded(job: string): Promise<QueuedItem[]> {
    const { rows } = await this.#pool.query<{ custom_id: string; line: number; url: QueuedItem['url']; body: Record<string, unknown>; attempt: number }>(
      `SELECT i.custom_id, i.line, i.url, i.body, i.attempt FROM ${this.#table('items')} i
       WHERE i.job = $1 AND NOT EXISTS (SELECT 1 FROM ${this.#table('results')} r WHERE r.job = i.job AND r.custom_id = i.custom_id AND r.attempt = i.attempt)
       ORDER BY i.line`,
      [job],
    );
    return rows.map((row) => ({ customId: row.custom_id, line: row.line, url: row.url, body: row.body, attempt: row.attempt }));
  }

  async unrecordedCount(job: string): Promise<number> {
    const { rows } = await this.#pool.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM ${this.#table('items')} i WHERE i.job = $1
         AND NOT EXISTS (SELECT 1 FROM ${this.#table('results')} r WHERE r.job = i.job AND r.custom_id = i.custom_id AND r.attempt = i.attempt)`,
      [job],
    );
    return Number(rows[0]!.n);
  }

  async isRecorded(job: string, customId: string, attempt: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(`SELECT 1 FROM ${this.#table('results')} WHERE job = $1 AND custom_id = $2 AND attempt = $3`, [job, customId, attempt]);
    return rowCount === 1;
  }

  async status(job: string): Promise<JobStatus | undefined> {
    const { rows } = await this.#pool.query<{ status: JobStatus }>(`SELECT status FROM ${this.#table('jobs')} WHERE id = $1`, [job]);
    return rows[0]?.status;
  }

  async setStatus(job: string, status: JobStatus, pauseReason?: PauseReason): Promise<void> {
    await this.#pool.query(`UPDATE ${this.#table('jobs')} SET status = $2, pause_reason = $3 WHERE id = $1`, [job, status, pauseReason ?? null]);
  }

  /** Reserves `worstCaseUsd` when it fits the job's budget (always, for a job without one). */
  async reserve(job: string, worstCaseUsd: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#table('jobs')} SET reserved_usd = reserved_usd + CASE WHEN budget_usd IS NULL THEN 0 ELSE $2 END
       WHERE id = $1 AND (budget_usd IS NULL OR spent_usd + reserved_usd + $2 <= budget_usd)`,
      [job, worstCaseUsd],
    );
    return rowCount === 1;
  }

  /** Inserts the item's result for its attempt and settles its reservation to the billed cost, in one transaction. */
  async record(job: string, customId: string, response: ItemResponse, reservedUsd: number): Promise<void> {
    await inTransaction(
      () => this.#pool.connect(),
      async (client) => {
        const inserted = await client.query(
          `INSERT INTO ${this.#table('results')} (job, custom_id, attempt, status_code, request_id, response, cost_usd)
           SELECT job, custom_id, attempt, $3, $4, $5, $6 FROM ${this.#table('items')} WHERE job = $1 AND custom_id = $2
           ON CONFLICT DO NOTHING`,
          [job, customId, response.statusCode, response.requestId, JSON.stringify(response.body), response.costUsd ?? null],
        );
        const billed = inserted.rowCount === 1 ? (response.costUsd ?? 0) : 0;
        await client.query(`UPDATE ${this.#table('jobs')} SET spent_usd = spent_usd + $2, reserved_usd = GREATEST(0, reserved_usd - $3) WHERE id = $1`, [job, billed, reservedUsd]);
      },
    );
  }

  async returnReserved(job: string, reservedUsd: number): Promise<void> {
    await this.#pool.query(`UPDATE ${this.#table('jobs')} SET reserved_usd = GREATEST(0, reserved_usd - $2) WHERE id = $1`, [job, reservedUsd]);
  }

  /** Failed items to their next attempt (a completed job back to paused); answers how many. */
  async retryFailed(job: string): Promise<number> {
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#table('items')} i SET attempt = i.attempt + 1 FROM ${this.#table('results')} r
       WHERE i.job = $1 AND r.job = i.job AND r.custom_id = i.custom_id AND r.attempt = i.attempt AND NOT (r.status_code BETWEEN 200 AND 299)`,
      [job],
    );
    if ((rowCount ?? 0) > 0) await this.#pool.query(`UPDATE ${this.#table('jobs')} SET status = 'paused' WHERE id = $1 AND status = 'completed'`, [job]);
    return rowCount ?? 0;
  }

  async books(job: string): Promise<JobBooks | undefined> {
    await this.tables();
    const { rows } = await this.#pool.query<{
      tenant_id: string;
      status: JobStatus;
      pause_reason: PauseReason | null;
      budget_usd: number | null;
      spent_usd: number;
      meta: Record<string, string>;
      total: string;
      done: string;
      failed: string;
    }>(
      `SELECT j.tenant_id, j.status, j.pause_reason, j.budget_usd, j.spent_usd, j.meta,
         (SELECT COUNT(*) FROM ${this.#table('items')} WHERE job = j.id) AS total,
         (SELECT COUNT(*) FROM ${this.#table('items')} i JOIN ${this.#table('results')} r USING (job, custom_id, attempt) WHERE i.job = j.id AND r.status_code BETWEEN 200 AND 299) AS done,
         (SELECT COUNT(*) FROM ${this.#table('items')} i JOIN ${this.#table('results')} r USING (job, custom_id, attempt) WHERE i.job = j.id AND NOT (r.status_code BETWEEN 200 AND 299)) AS failed
       FROM ${this.#table('jobs')} j WHERE j.id = $1`,
      [job],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      tenantId: row.tenant_id,
      status: row.status,
      ...(row.pause_reason !== null && { pauseReason: row.pause_reason }),
      ...(row.budget_usd !== null && { budgetUsd: row.budget_usd }),
      spentUsd: row.spent_usd,
      meta: row.meta,
      total: Number(row.total),
      done: Number(row.done),
      failed: Number(row.failed),
    };
  }

  async results(job: string): Promise<ItemResult[]> {
    const { rows } = await this.#pool.query<{ custom_id: string; line: number; attempt: number; status_code: number; request_id: string; response: unknown; cost_usd: number | null }>(
      `SELECT i.custom_id, i.line, i.attempt, r.status_code, r.request_id, r.response, r.cost_usd
       FROM ${this.#table('items')} i JOIN ${this.#table('results')} r USING (job, custom_id, attempt) WHERE i.job = $1 ORDER BY i.line`,
      [job],
    );
    return rows.map((row) => resultOf(row, row.response));
  }

  async annotate(job: string, meta: Readonly<Record<string, string>>): Promise<void> {
    await this.#pool.query(`UPDATE ${this.#table('jobs')} SET meta = meta || $2::jsonb WHERE id = $1`, [job, JSON.stringify(meta)]);
  }

  /** The ids of the tenant's jobs (undefined: every tenant's), newest first, after job `after` when given. */
  async jobIds(tenantId: string | undefined, options: { after?: string; limit: number }): Promise<string[]> {
    await this.tables();
    const { rows } = await this.#pool.query<{ id: string }>(
      `SELECT id FROM ${this.#table('jobs')} WHERE ($1::text IS NULL OR tenant_id = $1)
         AND seq < COALESCE((SELECT seq FROM ${this.#table('jobs')} WHERE id = $2 AND ($1::text IS NULL OR tenant_id = $1)), 9223372036854775807)
       ORDER BY seq DESC LIMIT $3`,
      [tenantId ?? null, options.after ?? null, options.limit],
    );
    return rows.map((row) => row.id);
  }
}
