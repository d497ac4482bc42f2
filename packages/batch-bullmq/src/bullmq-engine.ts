/**
 * The fleet engine (`@pgw/batch-bullmq`): a BullMQ queue per job on Redis carries the items to any
 * number of workers; items, job books and results live in PostgreSQL. A result is inserted keyed by
 * (job, custom_id, attempt) with ON CONFLICT DO NOTHING, in the transaction that settles its cost, and
 * only then is the queue entry completed: a worker killed in between leaves a stalled entry that
 * BullMQ's stalled-job check puts back, and the next claim finds its result and completes it without a
 * call. Every queue's keys carry the hash tag `{pgw-batch}`, so a Redis Cluster keeps them in one slot.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { Cluster } from 'ioredis';
import pg from 'pg';
import type { BatchEngine, BatchFileStore, BatchItem, BatchUrl, ItemResponse, ItemResult, JobProgress, JobSpec, JobStatus, PauseReason, StoredFile } from '@pgw/batch';
import { resultOf } from '@pgw/batch/internal';

export const BULLMQ_PREFIX = '{pgw-batch}';

export interface BullmqEngineOptions {
  /** Redis of the queue (`REDIS_URL`); in cluster mode one seed node or a comma-separated list. */
  redisUrl: string;
  /** `cluster`: `redisUrl` names Redis Cluster seeds (`PGW_REDIS_MODE`); default `standalone`. */
  redisMode?: 'standalone' | 'cluster';
  /** PostgreSQL of the items and results (`PGW_BATCH__DSN`, default `PGW_TELEMETRY_DSN`). */
  dsn: string;
  /** Schema of the tables; default: the connection's `search_path` (e.g. `?options=-c%20search_path%3Dbatch` in the DSN). */
  schema?: string;
  /** How long a claimed item stays a worker's without its lock being extended (default 30 s). */
  lockDurationMs?: number;
  /** How often stalled items (their worker gone) are put back (default 30 s). */
  stalledIntervalMs?: number;
  /** How often a worker with nothing to claim looks again while other workers' items are outstanding (default 250 ms). */
  pollMs?: number;
}

interface ItemData {
  customId: string;
  line: number;
  url: BatchUrl;
  body: Record<string, unknown>;
  attempt: number;
}

interface Claimed {
  entry: Job<ItemData>;
  token: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** A queue entry's id: the item's attempt and a digest of its custom_id (any text), so an item is queued once per attempt. */
const entryId = (customId: string, attempt: number) => `a${attempt}_${createHash('sha256').update(customId).digest('hex').slice(0, 32)}`;

export class BullmqBatchEngine implements BatchEngine, BatchFileStore {
  readonly #pool: pg.Pool;
  readonly #schema: string | undefined;
  readonly #redisUrl: string;
  readonly #cluster: boolean;
  readonly #lockDurationMs: number;
  readonly #stalledIntervalMs: number;
  readonly #pollMs: number;
  readonly #queues = new Map<string, { queue: Queue<ItemData>; worker: Worker<ItemData>; cluster?: Cluster }>();
  readonly #claimed = new Map<string, Claimed>();
  #lockTimer: NodeJS.Timeout | undefined;
  #ready: Promise<void> | undefined;
  #closing = false;

  constructor(options: BullmqEngineOptions) {
    const schema = options.schema;
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new TypeError(`BullmqBatchEngine(schema) must be an SQL identifier, got ${JSON.stringify(schema)}`);
    this.#schema = schema;
    this.#pool = new pg.Pool({ connectionString: options.dsn, max: 4 });
    this.#redisUrl = options.redisUrl;
    this.#cluster = options.redisMode === 'cluster';
    this.#lockDurationMs = options.lockDurationMs ?? 30_000;
    this.#stalledIntervalMs = options.stalledIntervalMs ?? 30_000;
    this.#pollMs = options.pollMs ?? 250;
  }

  #table(name: 'jobs' | 'items' | 'results' | 'files'): string {
    return this.#schema === undefined ? `pgw_batch_${name}` : `"${this.#schema}".pgw_batch_${name}`;
  }

  /** The tables, created once by whichever worker comes first (an advisory lock orders concurrent starts). */
  #tables(): Promise<void> {
    this.#ready ??= this.#transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('pgw_batch_schema'))");
      if (this.#schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table('jobs')} (
        id text PRIMARY KEY, tenant_id text NOT NULL, status text NOT NULL, pause_reason text, budget_usd double precision,
        spent_usd double precision NOT NULL DEFAULT 0, reserved_usd double precision NOT NULL DEFAULT 0, meta jsonb NOT NULL DEFAULT '{}')`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table('items')} (
        job text NOT NULL, custom_id text NOT NULL, line integer NOT NULL, url text NOT NULL, body jsonb NOT NULL,
        attempt integer NOT NULL DEFAULT 1, PRIMARY KEY (job, custom_id))`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table('results')} (
        job text NOT NULL, custom_id text NOT NULL, attempt integer NOT NULL, status_code integer NOT NULL, request_id text NOT NULL,
        response jsonb NOT NULL, cost_usd double precision, PRIMARY KEY (job, custom_id, attempt))`);
      // The creation order the server's listing pages by (newest first), added to tables of earlier versions too.
      await client.query(`ALTER TABLE ${this.#table('jobs')} ADD COLUMN IF NOT EXISTS seq bigserial`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table('files')} (
        id text PRIMARY KEY, tenant_id text NOT NULL, purpose text NOT NULL, filename text NOT NULL, bytes integer NOT NULL,
        created_at bigint NOT NULL, content bytea NOT NULL)`);
    });
    return this.#ready;
  }

  async #transaction<T>(run: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const value = await run(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  #queueOf(job: string): { queue: Queue<ItemData>; worker: Worker<ItemData> } {
    let pair = this.#queues.get(job);
    if (pair === undefined) {
      // A cluster client is the engine's to close (BullMQ closes only the connections it made).
      const cluster = this.#cluster ? this.#clusterClient() : undefined;
      const connection: ConnectionOptions = cluster ?? { url: this.#redisUrl, maxRetriesPerRequest: null };
      const options = { connection, prefix: BULLMQ_PREFIX };
      const queue = new Queue<ItemData>(job, options);
      // No processor: items are fetched by `claim`, so the runner keeps its loops, budget and signal.
      const worker = new Worker<ItemData>(job, null, { ...options, lockDuration: this.#lockDurationMs, stalledInterval: this.#stalledIntervalMs, maxStalledCount: 1_000_000 });
      void worker.startStalledCheckTimer().catch(() => undefined);
      pair = { queue, worker, ...(cluster !== undefined && { cluster }) };
      this.#queues.set(job, pair);
    }
    return pair;
  }

  /** Every key of a queue carries the hash tag `{pgw-batch}`, so the cluster keeps it in one slot. */
  #clusterClient(): Cluster {
    const nodes = this.#redisUrl.split(',').map((seed) => {
      const url = new URL(seed.trim());
      return { host: url.hostname, port: Number(url.port || 6379) };
    });
    const first = new URL(this.#redisUrl.split(',')[0]!.trim());
    return new Cluster(nodes, {
      redisOptions: {
        maxRetriesPerRequest: null,
        ...(first.username !== '' && { username: decodeURIComponent(first.username) }),
        ...(first.password !== '' && { password: decodeURIComponent(first.password) }),
        ...(first.protocol === 'rediss:' && { tls: {} }),
      },
    });
  }

  async open(spec: JobSpec, items: readonly BatchItem[]): Promise<JobProgress> {
    await this.#tables();
    await this.#transaction(async (client) => {
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
    });
    await this.#enqueueUnrecorded(spec.id);
    return (await this.progress(spec.id))!;
  }

  /** Queues every item without a result for its attempt; an entry already queued, running or stalled is not added twice. */
  async #enqueueUnrecorded(job: string): Promise<void> {
    const { rows } = await this.#pool.query<{ custom_id: string; line: number; url: BatchUrl; body: Record<string, unknown>; attempt: number }>(
      `SELECT i.custom_id, i.line, i.url, i.body, i.attempt FROM ${this.#table('items')} i
       WHERE i.job = $1 AND NOT EXISTS (SELECT 1 FROM ${this.#table('results')} r WHERE r.job = i.job AND r.custom_id = i.custom_id AND r.attempt = i.attempt)
       ORDER BY i.line`,
      [job],
    );
    const { queue } = this.#queueOf(job);
    for (let at = 0; at < rows.length; at += 500) {
      await queue.addBulk(
        rows.slice(at, at + 500).map((row) => ({
          name: 'item',
          data: { customId: row.custom_id, line: row.line, url: row.url, body: row.body, attempt: row.attempt },
          opts: { jobId: entryId(row.custom_id, row.attempt), removeOnComplete: true },
        })),
      );
    }
  }

  async claim(job: string, max: number, signal?: AbortSignal): Promise<BatchItem[]> {
    const { worker } = this.#queueOf(job);
    while (!this.#closing && !signal?.aborted) {
      const status = await this.#status(job);
      if (status !== 'running') return [];
      const items: BatchItem[] = [];
      while (items.length < max) {
        const token = randomUUID();
        const entry = (await worker.getNextJob(token, { block: false })) as Job<ItemData> | undefined;
        if (entry === undefined) break;
        const { customId, line, url, body, attempt } = entry.data;
        // A stalled entry whose worker recorded the result before it died: complete it, call nothing.
        if (await this.#recorded(job, customId, attempt)) {
          await entry.moveToCompleted(null, token, false).catch(() => undefined);
          continue;
        }
        this.#claimed.set(`${job}\0${customId}`, { entry, token });
        items.push({ customId, line, url, body });
      }
      if (items.length > 0) {
        this.#lockTimer ??= setInterval(() => void this.#extendLocks(), Math.max(100, this.#lockDurationMs / 3));
        return items;
      }
      if ((await this.#unrecorded(job)) === 0) return [];
      // Other workers' items are outstanding: one may stall and come back to this queue.
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
    }
    return [];
  }

  async #extendLocks(): Promise<void> {
    await Promise.all([...this.#claimed.values()].map(({ entry, token }) => entry.extendLock(token, this.#lockDurationMs).catch(() => undefined)));
  }

  async #status(job: string): Promise<JobStatus | undefined> {
    const { rows } = await this.#pool.query<{ status: JobStatus }>(`SELECT status FROM ${this.#table('jobs')} WHERE id = $1`, [job]);
    return rows[0]?.status;
  }

  async #recorded(job: string, customId: string, attempt: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(`SELECT 1 FROM ${this.#table('results')} WHERE job = $1 AND custom_id = $2 AND attempt = $3`, [job, customId, attempt]);
    return rowCount === 1;
  }

  async #unrecorded(job: string): Promise<number> {
    const { rows } = await this.#pool.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM ${this.#table('items')} i WHERE i.job = $1
         AND NOT EXISTS (SELECT 1 FROM ${this.#table('results')} r WHERE r.job = i.job AND r.custom_id = i.custom_id AND r.attempt = i.attempt)`,
      [job],
    );
    return Number(rows[0]!.n);
  }

  async reserve(job: string, worstCaseUsd: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#table('jobs')} SET reserved_usd = reserved_usd + CASE WHEN budget_usd IS NULL THEN 0 ELSE $2 END
       WHERE id = $1 AND (budget_usd IS NULL OR spent_usd + reserved_usd + $2 <= budget_usd)`,
      [job, worstCaseUsd],
    );
    return rowCount === 1;
  }

  async record(job: string, customId: string, response: ItemResponse, reservedUsd: number): Promise<void> {
    await this.#transaction(async (client) => {
      const inserted = await client.query(
        `INSERT INTO ${this.#table('results')} (job, custom_id, attempt, status_code, request_id, response, cost_usd)
         SELECT job, custom_id, attempt, $3, $4, $5, $6 FROM ${this.#table('items')} WHERE job = $1 AND custom_id = $2
         ON CONFLICT DO NOTHING`,
        [job, customId, response.statusCode, response.requestId, JSON.stringify(response.body), response.costUsd ?? null],
      );
      const billed = inserted.rowCount === 1 ? (response.costUsd ?? 0) : 0;
      await client.query(`UPDATE ${this.#table('jobs')} SET spent_usd = spent_usd + $2, reserved_usd = GREATEST(0, reserved_usd - $3) WHERE id = $1`, [job, billed, reservedUsd]);
    });
    const claimed = this.#take(job, customId);
    // Completing after the result is kept: a crash in between leaves a stalled entry whose result the next claim finds.
    await claimed?.entry.moveToCompleted(null, claimed.token, false).catch(() => undefined);
  }

  #take(job: string, customId: string): Claimed | undefined {
    const key = `${job}\0${customId}`;
    const claimed = this.#claimed.get(key);
    this.#claimed.delete(key);
    if (this.#claimed.size === 0) {
      clearInterval(this.#lockTimer);
      this.#lockTimer = undefined;
    }
    return claimed;
  }

  async release(job: string, customIds: readonly string[], reservedUsd: number): Promise<void> {
    for (const customId of customIds) {
      const claimed = this.#take(job, customId);
      await claimed?.entry.moveToWait(claimed.token).catch(() => undefined);
    }
    await this.#pool.query(`UPDATE ${this.#table('jobs')} SET reserved_usd = GREATEST(0, reserved_usd - $2) WHERE id = $1`, [job, reservedUsd]);
  }

  async setStatus(job: string, status: JobStatus, pauseReason?: PauseReason): Promise<void> {
    await this.#pool.query(`UPDATE ${this.#table('jobs')} SET status = $2, pause_reason = $3 WHERE id = $1`, [job, status, pauseReason ?? null]);
  }

  async retryFailed(job: string): Promise<number> {
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#table('items')} i SET attempt = i.attempt + 1 FROM ${this.#table('results')} r
       WHERE i.job = $1 AND r.job = i.job AND r.custom_id = i.custom_id AND r.attempt = i.attempt AND NOT (r.status_code BETWEEN 200 AND 299)`,
      [job],
    );
    if ((rowCount ?? 0) > 0) await this.#pool.query(`UPDATE ${this.#table('jobs')} SET status = 'paused' WHERE id = $1 AND status = 'completed'`, [job]);
    return rowCount ?? 0;
  }

  async progress(job: string): Promise<JobProgress | undefined> {
    await this.#tables();
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
    // Only a running job has items in flight; a listing of finished jobs opens no queue for them.
    const inFlight = row.status === 'running' ? await this.#queueOf(job).queue.getActiveCount() : 0;
    return {
      job,
      tenantId: row.tenant_id,
      status: row.status,
      ...(row.pause_reason !== null && { pauseReason: row.pause_reason }),
      total: Number(row.total),
      done: Number(row.done),
      failed: Number(row.failed),
      inFlight,
      costUsd: row.spent_usd,
      ...(row.budget_usd !== null && { budgetUsd: row.budget_usd }),
      meta: row.meta,
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

  async putFile(file: StoredFile, content: Uint8Array): Promise<void> {
    await this.#tables();
    await this.#pool.query(`INSERT INTO ${this.#table('files')} (id, tenant_id, purpose, filename, bytes, created_at, content) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      file.id,
      file.tenantId,
      file.purpose,
      file.filename,
      file.bytes,
      file.createdAt,
      Buffer.from(content.buffer, content.byteOffset, content.byteLength),
    ]);
  }

  async file(tenantId: string, id: string): Promise<StoredFile | undefined> {
    await this.#tables();
    const { rows } = await this.#pool.query<{ purpose: string; filename: string; bytes: number; created_at: string }>(
      `SELECT purpose, filename, bytes, created_at FROM ${this.#table('files')} WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { id, tenantId, purpose: row.purpose, filename: row.filename, bytes: row.bytes, createdAt: Number(row.created_at) };
  }

  async fileContent(tenantId: string, id: string): Promise<Uint8Array | undefined> {
    await this.#tables();
    const { rows } = await this.#pool.query<{ content: Buffer }>(`SELECT content FROM ${this.#table('files')} WHERE id = $1 AND tenant_id = $2`, [id, tenantId]);
    return rows[0]?.content;
  }

  async jobs(tenantId: string | undefined, options: { after?: string; limit: number }): Promise<JobProgress[]> {
    await this.#tables();
    const { rows } = await this.#pool.query<{ id: string }>(
      `SELECT id FROM ${this.#table('jobs')} WHERE ($1::text IS NULL OR tenant_id = $1)
         AND seq < COALESCE((SELECT seq FROM ${this.#table('jobs')} WHERE id = $2 AND ($1::text IS NULL OR tenant_id = $1)), 9223372036854775807)
       ORDER BY seq DESC LIMIT $3`,
      [tenantId ?? null, options.after ?? null, options.limit],
    );
    const jobs = await Promise.all(rows.map((row) => this.progress(row.id)));
    return jobs.filter((job): job is JobProgress => job !== undefined);
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#lockTimer);
    for (const { queue, worker, cluster } of this.#queues.values()) {
      await worker.close().catch(() => undefined);
      await queue.close().catch(() => undefined);
      await cluster?.quit().catch(() => cluster.disconnect());
    }
    this.#queues.clear();
    await this.#pool.end();
  }
}

