/**
 * The recorder's side of its writer thread (docs/architecture.md#telemetry): requests go out as
 * messages and are answered in order. A thread that dies fails what it had in hand and is replaced by
 * the next request, so a crash costs the batch in flight and nothing after it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describeError, type SqliteRow, type SqliteWriterConfig } from './sqlite-writer.js';
import type { WriterReply, WriterRequest, WriterRequestBody } from './writer-protocol.js';

interface Waiter {
  resolve: (reply: WriterReply) => void;
  reject: (error: Error) => void;
}

/**
 * The thread runs plain JavaScript: built, its entry sits next to this module. Run from TypeScript
 * source (the repository's tests, tsx), this module is `src/writer-thread.ts` and the thread runs the
 * package's built entry instead, since a worker thread gets no TypeScript loader; the workspace's test
 * setup (`vitest.writer-thread-setup.ts`) builds it when it is older than the sources. That entry
 * imports the built packages, so it starts without the parent's flags (`--conditions=@pgw/source`).
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_ENTRY = new URL(FROM_SOURCE ? '../dist/sqlite-worker.js' : './sqlite-worker.js', import.meta.url);

function spawnWriter(config: SqliteWriterConfig): Worker {
  if (!existsSync(WORKER_ENTRY)) {
    throw new Error(`the SQLite writer thread's entry ${fileURLToPath(WORKER_ENTRY)} is missing: run pnpm --filter @pgw/telemetry-sqlite build`);
  }
  return new Worker(WORKER_ENTRY, { workerData: config, ...(FROM_SOURCE && { execArgv: [] }) });
}

export class WriterThread {
  private worker: Worker | undefined;
  private readonly waiters = new Map<number, Waiter>();
  private nextId = 1;
  private closing = false;

  constructor(
    private readonly config: SqliteWriterConfig,
    private readonly now: () => number,
    private readonly warn: (message: string) => void,
  ) {}

  async open(): Promise<void> {
    await this.request({ kind: 'open' });
  }

  async write(rows: SqliteRow[]): Promise<void> {
    await this.request({ kind: 'write', rows });
  }

  /**
   * Closes the file in the thread (checkpointing its WAL) and waits for the thread to exit. A request
   * it already took may be waiting for a lock, so it gets that long and a second more; then it is terminated.
   */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.request({ kind: 'close' }).catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.config.busyTimeoutMs + 1_000);
    });
    await Promise.race([exited, grace]);
    clearTimeout(timer);
    await worker.terminate();
  }

  private async request(body: WriterRequestBody): Promise<void> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId;
    this.nextId += 1;
    const reply = await new Promise<WriterReply>((resolve, reject) => {
      this.waiters.set(id, { resolve, reject });
      // Only a thread with work in hand keeps the process alive: an idle recorder must not hold a script open.
      worker.ref();
      const request: WriterRequest = { ...body, id, at: this.now() };
      worker.postMessage(request);
    });
    for (const message of reply.warnings) this.warn(message);
    if (reply.error) throw Object.assign(new Error(reply.error.message), { name: reply.error.name });
  }

  private start(): Worker {
    const worker = spawnWriter(this.config);
    worker.unref();
    let crash: Error | undefined;
    worker.on('message', (reply: WriterReply) => this.answer(reply));
    worker.on('error', (error) => {
      crash = error;
    });
    worker.on('exit', (code) => this.lost(worker, crash ? `crashed: ${describeError(crash)}` : `exited with code ${code}`));
    return worker;
  }

  private answer(reply: WriterReply): void {
    const waiter = this.waiters.get(reply.id);
    if (!waiter) return;
    this.waiters.delete(reply.id);
    if (this.waiters.size === 0) this.worker?.unref();
    waiter.resolve(reply);
  }

  private lost(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    if (this.closing) return this.failWaiters(new Error(`the writer thread ${why} while closing`));
    const error = new Error(`the writer thread ${why}; a new one starts with the next batch`);
    if (this.waiters.size === 0) this.warn(error.message);
    this.failWaiters(error);
  }

  private failWaiters(error: Error): void {
    for (const waiter of this.waiters.values()) waiter.reject(error);
    this.waiters.clear();
  }
}
