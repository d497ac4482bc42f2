/**
 * The batch engine port (docs/architecture.md#ports-and-adapters): where a job's items, their states and their
 * results live, and the files a server keeps for its tenants. One interface, so the runner, the CLI
 * and the server never know which store keeps a job; `@pgw/batch` holds the embedded SQLite engine,
 * `@pgw/batch-bullmq` the fleet engine, and both pass `batchStoreContract` of `@pgw/testkit`.
 */

/** One line of a job's input, checked. `url` names its kind (`@pgw/batch`'s `BATCH_URLS`); `line` is 1-based. */
export interface BatchItem {
  customId: string;
  url: string;
  body: Record<string, unknown>;
  line: number;
}

/** `paused`: stopped by its signal or out of its budget, resumable; `cancelled`: stopped for good. */
export const JOB_STATUSES = ['running', 'paused', 'completed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Why a job is paused, when it is. */
export type PauseReason = 'signal' | 'budget';

/** What an item's call produced: OpenAI's batch `response` (status code and body). */
export interface ItemResponse {
  statusCode: number;
  requestId: string;
  body: unknown;
  /** Billed cost of the call, when priced. */
  costUsd?: number;
}

/** One finished item as the output files write it: a 2xx response is a result, anything else an error. */
export interface ItemResult extends ItemResponse {
  customId: string;
  line: number;
  attempt: number;
}

export interface JobProgress {
  job: string;
  tenantId: string;
  status: JobStatus;
  pauseReason?: PauseReason;
  total: number;
  done: number;
  failed: number;
  inFlight: number;
  costUsd: number;
  budgetUsd?: number;
  /** What the job's driver noted at its creation (the CLI: the output path and the scopes). */
  meta: Readonly<Record<string, string>>;
}

export interface JobSpec {
  id: string;
  /** The tenant the job's calls are made for (`""` = none). */
  tenantId: string;
  budgetUsd?: number;
  meta?: Readonly<Record<string, string>>;
}

export interface BatchEngine {
  /**
   * Registers the job with its items, or reopens it: a known job keeps its items and results (the
   * given items are ignored), its budget is raised to `spec.budgetUsd` when given, and items a dead
   * process left running go back to pending.
   */
  open(spec: JobSpec, items: readonly BatchItem[]): Promise<JobProgress>;
  /**
   * Up to `max` pending items, now running; none when the job is not running or has nothing left. An
   * engine shared by several workers may wait (until `signal`) while other workers' items are outstanding.
   */
  claim(job: string, max: number, signal?: AbortSignal): Promise<BatchItem[]>;
  /**
   * Reserves `worstCaseUsd` of the job's budget for one call; false (nothing reserved) when it does
   * not fit. Always true for a job without a budget.
   */
  reserve(job: string, worstCaseUsd: number): Promise<boolean>;
  /** Records a running item's result with its state, settling its reservation to the billed cost, in one step. */
  record(job: string, customId: string, response: ItemResponse, reservedUsd: number): Promise<void>;
  /** Running items back to pending (a pause), their reservations returned. */
  release(job: string, customIds: readonly string[], reservedUsd: number): Promise<void>;
  setStatus(job: string, status: JobStatus, pauseReason?: PauseReason): Promise<void>;
  /** Failed items back to pending as a new attempt; answers how many. */
  retryFailed(job: string): Promise<number>;
  progress(job: string): Promise<JobProgress | undefined>;
  /** Every finished item, in input order. */
  results(job: string): Promise<ItemResult[]>;
  /** Merges `meta` into the job's notes (the server: its output files once written). */
  annotate(job: string, meta: Readonly<Record<string, string>>): Promise<void>;
  /** The tenant's jobs (undefined: every tenant's, for the operator's report), newest first, after job `after` when given. */
  jobs(tenantId: string | undefined, options: { after?: string; limit: number }): Promise<JobProgress[]>;
  close(): Promise<void>;
}

/** A file kept for a tenant (`/v1/files`): a batch's input, output or errors. */
export interface StoredFile {
  id: string;
  tenantId: string;
  purpose: string;
  filename: string;
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
}

/** The files of each tenant, as the server's batch routes need them; another tenant's are not found. */
export interface BatchFileStore {
  putFile(file: StoredFile, content: Uint8Array): Promise<void>;
  file(tenantId: string, id: string): Promise<StoredFile | undefined>;
  fileContent(tenantId: string, id: string): Promise<Uint8Array | undefined>;
}

/** A 2xx response is a result; anything else goes to the error file. */
export const isSuccess = (statusCode: number): boolean => statusCode >= 200 && statusCode < 300;

/** A stored result as both engines' tables keep it (snake_case columns; the body already parsed). */
export interface ResultRow {
  custom_id: string;
  line: number;
  attempt: number;
  status_code: number;
  request_id: string;
  cost_usd: number | null;
}

export function resultOf(row: ResultRow, body: unknown): ItemResult {
  return {
    customId: row.custom_id,
    line: row.line,
    attempt: row.attempt,
    statusCode: row.status_code,
    requestId: row.request_id,
    body,
    ...(row.cost_usd !== null && { costUsd: row.cost_usd }),
  };
}
