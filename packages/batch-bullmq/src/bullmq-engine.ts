/**
 * The fleet engine: the job's queue on Redis (queues.ts) carries its items to any number of workers;
 * the job's books, items and results live in PostgreSQL (books.ts), and so do the files of the
 * server's batches (file-store.ts). A result is kept in the books before its queue entry is completed:
 * a worker killed in between leaves a stalled entry that BullMQ's stalled-job check puts back, and the
 * next worker to take it finds its result and completes it without a call.
 */
import type { BatchEngine, BatchFileStore, BatchItem, ItemResponse, ItemResult, JobProgress, JobSpec, JobStatus, PauseReason, StoredFile } from '@pgw/core';
import pg from 'pg';
import { BatchBooks } from './books.js';
import { PgBatchFileStore } from './file-store.js';
import { tableNames } from './pg-tables.js';
import { JobQueues } from './queues.js';

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

export class BullmqBatchEngine implements BatchEngine, BatchFileStore {
  readonly #pool: pg.Pool;
  readonly #books: BatchBooks;
  readonly #files: PgBatchFileStore;
  readonly #queues: JobQueues;
  readonly #pollMs: number;
  #closing = false;

  constructor(options: BullmqEngineOptions) {
    const table = tableNames(options.schema, 'BullmqBatchEngine');
    this.#pool = new pg.Pool({ connectionString: options.dsn, max: 4 });
    this.#books = new BatchBooks(this.#pool, options.schema, table);
    this.#files = new PgBatchFileStore({ pool: this.#pool, ...(options.schema !== undefined && { schema: options.schema }) });
    this.#queues = new JobQueues({
      redisUrl: options.redisUrl,
      ...(options.redisMode !== undefined && { redisMode: options.redisMode }),
      lockDurationMs: options.lockDurationMs ?? 30_000,
      stalledIntervalMs: options.stalledIntervalMs ?? 30_000,
    });
    this.#pollMs = options.pollMs ?? 250;
  }

  async open(spec: JobSpec, items: readonly BatchItem[]): Promise<JobProgress> {
    await this.#books.open(spec, items);
    // Every item without a result for its attempt; an entry already queued, running or stalled is not added twice.
    await this.#queues.add(spec.id, await this.#books.unrecorded(spec.id));
    return (await this.progress(spec.id))!;
  }

  async claim(job: string, max: number, signal?: AbortSignal): Promise<BatchItem[]> {
    while (!this.#closing && !signal?.aborted) {
      if ((await this.#books.status(job)) !== 'running') return [];
      const items: BatchItem[] = [];
      while (items.length < max) {
        const queued = await this.#queues.take(job);
        if (queued === undefined) break;
        const { attempt, ...item } = queued;
        // A stalled entry whose worker recorded the result before it died: complete it, call nothing.
        if (await this.#books.isRecorded(job, item.customId, attempt)) await this.#queues.complete(job, item.customId);
        else items.push(item);
      }
      if (items.length > 0) return items;
      if ((await this.#books.unrecordedCount(job)) === 0) return [];
      // Other workers' items are outstanding: one may stall and come back to this queue.
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
    }
    return [];
  }

  reserve(job: string, worstCaseUsd: number): Promise<boolean> {
    return this.#books.reserve(job, worstCaseUsd);
  }

  async record(job: string, customId: string, response: ItemResponse, reservedUsd: number): Promise<void> {
    await this.#books.record(job, customId, response, reservedUsd);
    // Completing after the result is kept: a crash in between leaves a stalled entry whose result the next claim finds.
    await this.#queues.complete(job, customId);
  }

  async release(job: string, customIds: readonly string[], reservedUsd: number): Promise<void> {
    for (const customId of customIds) await this.#queues.putBack(job, customId);
    await this.#books.returnReserved(job, reservedUsd);
  }

  setStatus(job: string, status: JobStatus, pauseReason?: PauseReason): Promise<void> {
    return this.#books.setStatus(job, status, pauseReason);
  }

  retryFailed(job: string): Promise<number> {
    return this.#books.retryFailed(job);
  }

  async progress(job: string): Promise<JobProgress | undefined> {
    const books = await this.#books.books(job);
    if (books === undefined) return undefined;
    const { tenantId, status, pauseReason, total, done, failed, spentUsd, budgetUsd, meta } = books;
    // Only a running job has items in flight; a listing of finished jobs opens no queue for them.
    const inFlight = status === 'running' ? await this.#queues.running(job) : 0;
    return { job, tenantId, status, ...(pauseReason !== undefined && { pauseReason }), total, done, failed, inFlight, costUsd: spentUsd, ...(budgetUsd !== undefined && { budgetUsd }), meta };
  }

  results(job: string): Promise<ItemResult[]> {
    return this.#books.results(job);
  }

  annotate(job: string, meta: Readonly<Record<string, string>>): Promise<void> {
    return this.#books.annotate(job, meta);
  }

  async jobs(tenantId: string | undefined, options: { after?: string; limit: number }): Promise<JobProgress[]> {
    const ids = await this.#books.jobIds(tenantId, options);
    const jobs = await Promise.all(ids.map((id) => this.progress(id)));
    return jobs.filter((job): job is JobProgress => job !== undefined);
  }

  putFile(file: StoredFile, content: Uint8Array): Promise<void> {
    return this.#files.putFile(file, content);
  }

  file(tenantId: string, id: string): Promise<StoredFile | undefined> {
    return this.#files.file(tenantId, id);
  }

  fileContent(tenantId: string, id: string): Promise<Uint8Array | undefined> {
    return this.#files.fileContent(tenantId, id);
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#queues.close();
    await this.#pool.end();
  }
}
