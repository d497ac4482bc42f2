/**
 * The server's batches: OpenAI's `/v1/files` and `/v1/batches` objects, and Anthropic's message
 * batches (message-batches.ts), over one @pgw/batch engine, one tenant's files and batches invisible
 * to another. A batch runs in the background as a job of the caller's tenant (every line a governed
 * call of the `batch` class on its model's scope); once an OpenAI batch ends, its output and error
 * files are stored beside its input. Each protocol sees only its own batches (`BatchKind`).
 */
import { randomBytes } from 'node:crypto';
import {
  CHAT_URL,
  EMBEDDINGS_URL,
  MESSAGES_URL,
  RESPONSES_URL,
  outputLine,
  parseBatchInput,
  resumeBatch,
  BatchInputError,
  type BatchClients,
} from '@pgw/batch';
import { isSuccess, type BatchEngine, type BatchFileStore, type BatchItem, type ItemResult, type JobProgress, type StoredFile } from '@pgw/core';
import type { EmbeddingClient, GatewayClient } from '@pgw/client';
import { mayCall, type RequestCaller } from '../door/caller.js';
import { BatchNotEndedError, ObjectNotFoundError } from '../door/request-error.js';
import type { ScopeClients } from '../scope-clients.js';

export const BATCH_ENDPOINTS = [CHAT_URL, RESPONSES_URL, EMBEDDINGS_URL] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** What a job runs: an OpenAI batch's endpoint, or Anthropic's Messages. */
export type JobEndpoint = BatchEndpoint | typeof MESSAGES_URL;

/** The client kind a batch endpoint calls: chat, Responses and Messages lines are all chat calls. */
const clientKindOf = (endpoint: JobEndpoint) => (endpoint === EMBEDDINGS_URL ? 'embed' : 'chat');

/** Which protocol's batches a route sees: OpenAI's `batch` objects, or Anthropic's `message_batch`. */
export type BatchKind = 'batch' | 'message_batch';
const kindOf = (job: JobProgress): BatchKind => (job.meta['endpoint'] === MESSAGES_URL ? 'message_batch' : 'batch');
/** A deleted message batch is gone from every route (its rows stay in the engine, which deletes nothing). */
const isVisible = (job: JobProgress, kind: BatchKind) => kindOf(job) === kind && job.meta['deleted_at'] === undefined;

/** A batch ended: its runner stopped and its end was noted (an OpenAI batch's files stored). */
export const hasEnded = (job: JobProgress): boolean => job.meta['finalized_at'] !== undefined;

/** A page of a tenant's batches, newest first: after (older than) or before (newer than) a batch. */
export interface BatchPage {
  after?: string | undefined;
  before?: string | undefined;
  limit: number;
}
export interface BatchRequest {
  inputFileId: string;
  endpoint: BatchEndpoint;
  completionWindow: string;
  metadata?: Record<string, string>;
}

export const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);
/** What a file object and a batch object answer. */
export type FileObject = ReturnType<typeof fileObject>;

export function fileObject(file: StoredFile) {
  return { id: file.id, object: 'file', bytes: file.bytes, created_at: file.createdAt, filename: file.filename, purpose: file.purpose, status: 'processed', status_details: null };
}

/** OpenAI's batch status: `completed`/`cancelled` only once the output files are stored. */
function statusOf(job: JobProgress): string {
  const finalized = hasEnded(job);
  if (job.status === 'completed') return finalized ? 'completed' : 'finalizing';
  if (job.status === 'cancelled') return finalized ? 'cancelled' : 'cancelling';
  return 'in_progress';
}

export function batchObject(job: JobProgress) {
  const { meta } = job;
  const at = (key: string) => (meta[key] === undefined ? null : Number(meta[key]));
  const status = statusOf(job);
  return {
    id: job.job,
    object: 'batch',
    endpoint: meta['endpoint'],
    errors: null,
    input_file_id: meta['input_file_id'],
    completion_window: meta['completion_window'],
    status,
    output_file_id: meta['output_file_id'] ?? null,
    error_file_id: meta['error_file_id'] ?? null,
    created_at: at('created_at'),
    in_progress_at: at('created_at'),
    expires_at: null,
    finalizing_at: null,
    completed_at: status === 'completed' ? at('finalized_at') : null,
    failed_at: null,
    expired_at: null,
    cancelling_at: at('cancelling_at'),
    cancelled_at: status === 'cancelled' ? at('finalized_at') : null,
    request_counts: { total: job.total, completed: job.done, failed: job.failed },
    metadata: meta['metadata'] === undefined ? null : (JSON.parse(meta['metadata']) as Record<string, string>),
  };
}

/** The engine's page size when a listing filters its pages. */
const LIST_PAGE = 100;

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

/** A batch engine that also keeps the tenants' files: both engines are. */
export type ServerBatchStore = BatchEngine & BatchFileStore;

/** How the server reaches its store: opened on first use; `mayHoldJobs` false means nothing to resume (and nothing is created). */
export interface BatchStoreSource {
  open(): Promise<ServerBatchStore>;
  mayHoldJobs(): boolean;
}

export class ServerBatches {
  readonly #source: BatchStoreSource;
  readonly #clients: ScopeClients;
  readonly #fault: (error: unknown) => void;
  readonly #running = new Map<string, Running>();
  #engine: Promise<ServerBatchStore> | undefined;

  constructor(source: BatchStoreSource, clients: ScopeClients, fault: (error: unknown) => void) {
    this.#source = source;
    this.#clients = clients;
    this.#fault = fault;
  }

  /** Opened on first use: a server that never sees a batch writes no batch file. */
  #store(): Promise<ServerBatchStore> {
    this.#engine ??= this.#source.open();
    return this.#engine;
  }

  async createFile(tenantId: string, filename: string, purpose: string, content: Uint8Array): Promise<StoredFile> {
    const file = { id: newId('file-'), tenantId, purpose, filename, bytes: content.byteLength, createdAt: nowSeconds() };
    await (await this.#store()).putFile(file, content);
    return file;
  }

  async file(tenantId: string, id: string): Promise<StoredFile> {
    const file = await (await this.#store()).file(tenantId, id);
    if (file === undefined) throw new ObjectNotFoundError('File', id);
    return file;
  }

  async fileContent(tenantId: string, id: string): Promise<Uint8Array> {
    const content = await (await this.#store()).fileContent(tenantId, id);
    if (content === undefined) throw new ObjectNotFoundError('File', id);
    return content;
  }

  /** Checks the input file whole (each line's url is the batch's endpoint, its model one the caller may use), then starts the job. */
  async create(caller: RequestCaller, request: BatchRequest): Promise<JobProgress> {
    const tenantId = caller.tenantId ?? '';
    const content = await this.fileContent(tenantId, request.inputFileId);
    const text = new TextDecoder('utf-8', { fatal: false }).decode(content);
    const kind = clientKindOf(request.endpoint);
    const models = new Map<string, string>();
    const items = parseBatchInput(text, {
      knowsModel: (url, model) => {
        // A line of another url is refused below, naming its url rather than its model.
        if (url !== request.endpoint) return true;
        const scope = mayCall(caller, model) ? this.scopeOf(kind, model) : undefined;
        if (scope !== undefined) models.set(model, scope);
        return scope !== undefined;
      },
    });
    const wrongUrl = items.find((item) => item.url !== request.endpoint);
    if (wrongUrl) throw new BatchInputError({ line: wrongUrl.line, field: 'url', message: `must be the batch's endpoint ${request.endpoint}` });
    const meta = {
      input_file_id: request.inputFileId,
      completion_window: request.completionWindow,
      ...(request.metadata !== undefined && { metadata: JSON.stringify(request.metadata) }),
    };
    return this.begin({ id: newId('batch_'), tenantId, endpoint: request.endpoint, models, meta }, items);
  }

  /** The scope that serves `model`, or undefined: no scope does. */
  scopeOf(kind: 'chat' | 'embed', model: string): string | undefined {
    try {
      return this.#clients.scopeOf(kind, model);
    } catch {
      return undefined;
    }
  }

  /** Opens a checked job and starts it in the background; `models` maps each of its models to its scope. */
  async begin(job: { id: string; tenantId: string; endpoint: JobEndpoint; models: ReadonlyMap<string, string>; meta: Record<string, string> }, items: readonly BatchItem[]): Promise<JobProgress> {
    const meta = {
      ...job.meta,
      endpoint: job.endpoint,
      created_at: String(nowSeconds()),
      // Model → scope, so a server started again can resume the batch on the same scopes.
      scopes: JSON.stringify(Object.fromEntries(job.models)),
    };
    const opened = await (await this.#store()).open({ id: job.id, tenantId: job.tenantId, meta }, items);
    this.#start(job.id, await this.#clientsOf(job.endpoint, job.models));
    return opened;
  }

  /**
   * Resumes the batches a previous server left unfinished (stopped by its drain, or killed): called
   * once the server listens. Without a batch file there is nothing to resume, and none is created.
   */
  async resumeUnfinished(): Promise<number> {
    if (!this.#source.mayHoldJobs()) return 0;
    let resumed = 0;
    for (let after: string | undefined; ; ) {
      const page = await (await this.#store()).jobs(undefined, { ...(after !== undefined && { after }), limit: 100 });
      for (const job of page) {
        const { endpoint, scopes } = job.meta;
        if (job.status === 'completed' || job.status === 'cancelled' || endpoint === undefined || scopes === undefined || this.#running.has(job.job)) continue;
        const models = new Map(Object.entries(JSON.parse(scopes) as Record<string, string>));
        this.#start(job.job, await this.#clientsOf(endpoint as JobEndpoint, models));
        resumed += 1;
      }
      if (page.length < 100) return resumed;
      after = page.at(-1)!.job;
    }
  }

  /** `resumeUnfinished` with its failure logged as a fault: what the server calls once it listens. */
  resumeInBackground(): Promise<number> {
    return this.resumeUnfinished().catch((error: unknown) => {
      this.#fault(error);
      return 0;
    });
  }

  async #clientsOf(endpointUrl: JobEndpoint, models: ReadonlyMap<string, string>): Promise<BatchClients> {
    const kind = clientKindOf(endpointUrl);
    const byModel = new Map<string, GatewayClient | EmbeddingClient>();
    for (const [model, scope] of models) byModel.set(model, await this.#clients.client(kind, scope));
    return kind === 'chat' ? { chat: (model) => byModel.get(model) as GatewayClient | undefined } : { embeddings: (model) => byModel.get(model) as EmbeddingClient | undefined };
  }

  /** Drives the job in the background; its output files are stored when it ends. */
  #start(job: string, clients: BatchClients): void {
    const controller = new AbortController();
    const done = this.#store()
      .then((engine) => resumeBatch(clients, { engine, job, signal: controller.signal }))
      .then((summary) => this.#finalize(summary))
      .catch((error: unknown) => this.#fault(error))
      .finally(() => this.#running.delete(job));
    this.#running.set(job, { controller, done });
  }

  /** The tenant's batch of that kind; another tenant's, another protocol's or a deleted one is not found. */
  async retrieve(tenantId: string, id: string, kind: BatchKind = 'batch'): Promise<JobProgress> {
    const job = await (await this.#store()).progress(id);
    if (job === undefined || job.tenantId !== tenantId || !isVisible(job, kind)) throw new ObjectNotFoundError('Batch', id);
    return job;
  }

  /** The newest batches of every tenant (the console's panel); none, and no batch store opened, before the first batch. */
  async recent(limit: number): Promise<JobProgress[]> {
    if (this.#engine === undefined && !this.#source.mayHoldJobs()) return [];
    return (await this.#store()).jobs(undefined, { limit });
  }

  /**
   * A page of the tenant's batches of that kind, newest first, and whether more lie beyond it (older
   * ones after `after`, or newer ones before `before`). The engine pages every kind together, so the
   * pages are read on until this one is full.
   */
  async list(tenantId: string, kind: BatchKind, page: BatchPage): Promise<{ jobs: JobProgress[]; hasMore: boolean }> {
    const seen: JobProgress[] = [];
    for await (const job of this.#visibleJobs(tenantId, kind, page.before === undefined ? page.after : undefined)) {
      if (job.job === page.before) return { jobs: seen.slice(-page.limit), hasMore: seen.length > page.limit };
      seen.push(job);
      // Before a batch, only the newest `limit + 1` matter; after one (or from the top), the first.
      if (page.before === undefined && seen.length > page.limit) return { jobs: seen.slice(0, page.limit), hasMore: true };
      if (seen.length > page.limit + 1) seen.shift();
    }
    // `before` names no batch of this tenant and kind: nothing is newer than it.
    return page.before === undefined ? { jobs: seen, hasMore: false } : { jobs: [], hasMore: false };
  }

  async *#visibleJobs(tenantId: string, kind: BatchKind, after: string | undefined): AsyncGenerator<JobProgress> {
    const store = await this.#store();
    for (let from = after; ; ) {
      const jobs = await store.jobs(tenantId, { ...(from !== undefined && { after: from }), limit: LIST_PAGE });
      yield* jobs.filter((job) => isVisible(job, kind));
      if (jobs.length < LIST_PAGE) return;
      from = jobs.at(-1)!.job;
    }
  }

  /** Every finished item of the batch, in input order. */
  async results(job: string): Promise<ItemResult[]> {
    return (await this.#store()).results(job);
  }

  /** Hides an ended message batch from every route (Anthropic's delete). */
  async delete(tenantId: string, id: string): Promise<void> {
    const job = await this.retrieve(tenantId, id, 'message_batch');
    if (!hasEnded(job)) throw new BatchNotEndedError(id);
    await (await this.#store()).annotate(id, { deleted_at: String(nowSeconds()) });
  }

  /** Stops claiming items; the calls in flight end, and the output files hold what finished. */
  async cancel(tenantId: string, id: string, kind: BatchKind = 'batch'): Promise<JobProgress> {
    const job = await this.retrieve(tenantId, id, kind);
    if (job.status === 'completed' || job.status === 'cancelled') return job;
    await (await this.#store()).setStatus(id, 'cancelled');
    await (await this.#store()).annotate(id, { cancelling_at: String(nowSeconds()) });
    const running = this.#running.get(id);
    if (running === undefined) await this.#finalize((await (await this.#store()).progress(id))!);
    return (await (await this.#store()).progress(id))!;
  }

  /** Pauses the running batches (their items run again when resumed) and closes the store. */
  async close(): Promise<void> {
    for (const { controller } of this.#running.values()) controller.abort();
    await Promise.all([...this.#running.values()].map(({ done }) => done));
    await (await this.#engine)?.close();
  }

  /** An ended batch's output and error files, stored for its tenant (a message batch's results are read from the engine). */
  async #finalize(job: JobProgress): Promise<void> {
    if (job.status !== 'completed' && job.status !== 'cancelled') return;
    if (kindOf(job) === 'message_batch') return (await this.#store()).annotate(job.job, { finalized_at: String(nowSeconds()) });
    const results = await (await this.#store()).results(job.job);
    const store = async (purpose: string, lines: string[]) => {
      if (lines.length === 0) return undefined;
      const file = await this.createFile(job.tenantId, `${job.job}_${purpose}.jsonl`, purpose, Buffer.from(`${lines.join('\n')}\n`));
      return file.id;
    };
    const output = await store('batch_output', results.filter((result) => isSuccess(result.statusCode)).map(outputLine));
    const errors = await store('batch_error', results.filter((result) => !isSuccess(result.statusCode)).map(outputLine));
    await (await this.#store()).annotate(job.job, {
      ...(output !== undefined && { output_file_id: output }),
      ...(errors !== undefined && { error_file_id: errors }),
      finalized_at: String(nowSeconds()),
    });
  }
}
