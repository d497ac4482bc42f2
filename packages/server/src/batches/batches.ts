/**
 * The server's batches: OpenAI's `/v1/files` and `/v1/batches` objects over the @pgw/batch engine,
 * one tenant's files and batches invisible to another. A batch runs in the background as a job of
 * the caller's tenant (every line a governed call of the `batch` class on its model's scope); once it
 * ends, its output and error files are stored beside its input.
 */
import { randomBytes } from 'node:crypto';
import {
  CHAT_URL,
  EMBEDDINGS_URL,
  RESPONSES_URL,
  outputLine,
  isSuccess,
  parseBatchInput,
  resumeBatch,
  BatchInputError,
  type BatchClients,
  type BatchEngine,
  type BatchFileStore,
  type JobProgress,
  type StoredFile,
} from '@pgw/batch';
import type { EmbeddingClient, GatewayClient } from '@pgw/client';
import { mayCall, type RequestCaller } from '../door/caller.js';
import { ObjectNotFoundError } from '../door/request-error.js';
import type { ScopeClients } from '../scope-clients.js';

export const BATCH_ENDPOINTS = [CHAT_URL, RESPONSES_URL, EMBEDDINGS_URL] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** The client kind a batch endpoint calls: chat and Responses lines are both chat calls. */
const clientKindOf = (endpoint: BatchEndpoint) => (endpoint === EMBEDDINGS_URL ? 'embed' : 'chat');

export interface BatchRequest {
  inputFileId: string;
  endpoint: BatchEndpoint;
  completionWindow: string;
  metadata?: Record<string, string>;
}

const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** What a file object and a batch object answer. */
export type FileObject = ReturnType<typeof fileObject>;

export function fileObject(file: StoredFile) {
  return { id: file.id, object: 'file', bytes: file.bytes, created_at: file.createdAt, filename: file.filename, purpose: file.purpose, status: 'processed', status_details: null };
}

/** OpenAI's batch status: `completed`/`cancelled` only once the output files are stored. */
function statusOf(job: JobProgress): string {
  const finalized = job.meta['finalized_at'] !== undefined;
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
        if (!mayCall(caller, model)) return false;
        try {
          models.set(model, this.#clients.scopeOf(kind, model));
          return true;
        } catch {
          return false;
        }
      },
    });
    const wrongUrl = items.find((item) => item.url !== request.endpoint);
    if (wrongUrl) throw new BatchInputError({ line: wrongUrl.line, field: 'url', message: `must be the batch's endpoint ${request.endpoint}` });
    const job = newId('batch_');
    const meta = {
      endpoint: request.endpoint,
      input_file_id: request.inputFileId,
      completion_window: request.completionWindow,
      created_at: String(nowSeconds()),
      // Model → scope, so a server started again can resume the batch on the same scopes.
      scopes: JSON.stringify(Object.fromEntries(models)),
      ...(request.metadata !== undefined && { metadata: JSON.stringify(request.metadata) }),
    };
    const opened = await (await this.#store()).open({ id: job, tenantId, meta }, items);
    this.#start(job, await this.#clientsOf(request.endpoint, models));
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
        this.#start(job.job, await this.#clientsOf(endpoint as BatchEndpoint, models));
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

  async #clientsOf(endpointUrl: BatchEndpoint, models: ReadonlyMap<string, string>): Promise<BatchClients> {
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

  async retrieve(tenantId: string, id: string): Promise<JobProgress> {
    const job = await (await this.#store()).progress(id);
    if (job === undefined || job.tenantId !== tenantId) throw new ObjectNotFoundError('Batch', id);
    return job;
  }

  /** The newest batches of every tenant (the console's panel); none, and no batch store opened, before the first batch. */
  async recent(limit: number): Promise<JobProgress[]> {
    if (this.#engine === undefined && !this.#source.mayHoldJobs()) return [];
    return (await this.#store()).jobs(undefined, { limit });
  }

  async list(tenantId: string, after: string | undefined, limit: number): Promise<JobProgress[]> {
    return (await this.#store()).jobs(tenantId, { ...(after !== undefined && { after }), limit });
  }

  /** Stops claiming items; the calls in flight end, and the output files hold what finished. */
  async cancel(tenantId: string, id: string): Promise<JobProgress> {
    const job = await this.retrieve(tenantId, id);
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

  /** An ended batch's output and error files, stored for its tenant. */
  async #finalize(job: JobProgress): Promise<void> {
    if (job.status !== 'completed' && job.status !== 'cancelled') return;
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
