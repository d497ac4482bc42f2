/**
 * Runs a job to its end, or until it pauses: `concurrency` loops each claim an item, reserve its
 * worst case from the job's budget, make its governed call (priority `batch`) and record the result
 * in the engine. A resumed job sends nothing whose result was recorded.
 */
import { BudgetExceededError, GatewayClient, PolyGatewayError } from '@pgw/client';
import { estimateItem } from './cost-estimate.js';
import type { BatchEngine, BatchItem, JobProgress, PauseReason } from '@pgw/core';
import { parseBatchInput, type InputItem } from './input.js';
import { callItem, servesItem, type BatchClients } from './item-call.js';
import { failedResponse } from './item-failure.js';
import { assertJobId, jobIdOf } from './job-id.js';

export interface RunBatchOptions {
  engine: BatchEngine;
  /** Default: a digest of the input (`jobIdOf`). */
  job?: string;
  /** Whom the calls are made for (the tenant's gates and budget); default none (`""`). */
  tenantId?: string;
  /** Items in flight at most (default 8). */
  concurrency?: number;
  /** The job's own spend budget in USD; raising it on a paused job lets it resume. */
  budgetUsd?: number;
  /** Called once the job is opened (before its first item is sent), every `progressIntervalMs` while it runs, and once at its end. */
  onProgress?: (progress: JobProgress) => void;
  progressIntervalMs?: number;
  /** Aborting pauses the job: calls in flight are abandoned and their items run again on resume. */
  signal?: AbortSignal;
}

const DEFAULT_CONCURRENCY = 8;
const DEFAULT_PROGRESS_INTERVAL_MS = 1000;

const clientsOf = (client: GatewayClient | BatchClients): BatchClients => (client instanceof GatewayClient ? { chat: client } : client);

/** The input as text: the JSONL itself, or its lines (strings or objects). */
const inputText = (lines: string | readonly (string | object)[]): string =>
  typeof lines === 'string' ? lines : lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');

/** Checks the input whole against the clients (unknown models included), before anything runs. */
export function checkBatchInput(client: GatewayClient | BatchClients, lines: string | readonly (string | object)[]): InputItem[] {
  const clients = clientsOf(client);
  return parseBatchInput(inputText(lines), { knowsModel: (url, model) => servesItem(clients, url, model) });
}

/** No job of that id in the engine. */
export class BatchJobNotFoundError extends PolyGatewayError {
  static override readonly kind: string = 'BatchJobNotFoundError';
  readonly job: string;

  constructor(job: string) {
    super({ message: `no batch job ${job} in this engine` });
    this.job = job;
  }
}

export async function runBatch(
  client: GatewayClient | BatchClients,
  lines: string | readonly (string | object)[],
  options: RunBatchOptions & { meta?: Readonly<Record<string, string>> },
): Promise<JobProgress> {
  const clients = clientsOf(client);
  const concurrency = checkedConcurrency(options.concurrency);
  const { budgetUsd } = options;
  if (budgetUsd !== undefined && !(Number.isFinite(budgetUsd) && budgetUsd > 0)) throw new RangeError(`runBatch(options.budgetUsd) must be a number of USD > 0, got ${budgetUsd}`);
  const text = inputText(lines);
  const items = checkBatchInput(clients, text);
  if (budgetUsd !== undefined) {
    const unpriced = items.find((item) => estimateItem(clients, item).worstCaseUsd === undefined);
    if (unpriced) throw new RangeError(`runBatch(options.budgetUsd): line ${unpriced.line} runs on a source without a price, so its worst case cannot be reserved`);
  }
  const job = options.job ?? jobIdOf(text);
  assertJobId(job, 'runBatch(options.job)');
  const spec = { id: job, tenantId: options.tenantId ?? '', ...(budgetUsd !== undefined && { budgetUsd }), ...(options.meta && { meta: options.meta }) };
  return driveJob(clients, await options.engine.open(spec, items), options, concurrency);
}

/**
 * Resumes a job the engine knows (paused, or left running by a dead process) from its stored items;
 * `budgetUsd` raises its budget. Its tenant is the one it was created for.
 */
export async function resumeBatch(client: GatewayClient | BatchClients, options: Omit<RunBatchOptions, 'tenantId'> & { job: string }): Promise<JobProgress> {
  assertJobId(options.job, 'resumeBatch(options.job)');
  const concurrency = checkedConcurrency(options.concurrency);
  const known = await options.engine.progress(options.job);
  if (known === undefined) throw new BatchJobNotFoundError(options.job);
  const opened = await options.engine.open({ id: options.job, tenantId: known.tenantId, ...(options.budgetUsd !== undefined && { budgetUsd: options.budgetUsd }) }, []);
  return driveJob(clientsOf(client), opened, options, concurrency);
}

function checkedConcurrency(concurrency = DEFAULT_CONCURRENCY): number {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`runBatch(options.concurrency) must be an integer ≥ 1, got ${concurrency}`);
  return concurrency;
}

/** Runs an opened job until it ends or pauses; a job not running (completed, cancelled) is only reported. */
async function driveJob(clients: BatchClients, opened: JobProgress, options: RunBatchOptions, concurrency: number): Promise<JobProgress> {
  const { engine, signal } = options;
  if (opened.status !== 'running') {
    options.onProgress?.(opened);
    return opened;
  }
  // Named before the first item is sent: a run stopped in its first second has told the user its job id.
  options.onProgress?.(opened);
  const { job, tenantId } = opened;
  let pause: PauseReason | undefined;
  const budgeted = opened.budgetUsd !== undefined;
  const runOne = async (item: BatchItem): Promise<void> => {
    // A job without a budget reserves nothing; an unpriced item neither (runBatch refused a budget over unpriced items up front).
    const reservedUsd = budgeted ? (estimateItem(clients, item).worstCaseUsd ?? 0) : 0;
    if (budgeted && !(await engine.reserve(job, reservedUsd))) {
      pause = 'budget';
      await engine.release(job, [item.customId], 0);
      return;
    }
    try {
      const response = await callItem(clients, item, { tenantId, signal: signal ?? new AbortController().signal });
      await engine.record(job, item.customId, response, reservedUsd);
    } catch (error) {
      if (signal?.aborted || error instanceof BudgetExceededError) {
        // Not a failure of the item: it runs again when the job resumes.
        if (error instanceof BudgetExceededError) pause = 'budget';
        await engine.release(job, [item.customId], reservedUsd);
        return;
      }
      await engine.record(job, item.customId, failedResponse(error, `${job}-${item.customId}`), reservedUsd);
    }
  };
  // Items are claimed up to `concurrency` at a time (one store transaction for many items); those not
  // started when the job pauses go back to pending, and after a crash they are recovered like any running item.
  const claimed: BatchItem[] = [];
  let claiming: Promise<void> | undefined;
  let drained = false;
  const next = async (): Promise<BatchItem | undefined> => {
    while (claimed.length === 0 && !drained) {
      claiming ??= engine.claim(job, concurrency, signal).then((items) => {
        claimed.push(...items);
        drained = items.length === 0;
        claiming = undefined;
      });
      await claiming;
    }
    return claimed.shift();
  };
  const loop = async (): Promise<void> => {
    while (!signal?.aborted && pause === undefined) {
      const item = await next();
      if (item === undefined) return;
      await runOne(item);
    }
  };

  // Progress is a view: a failed read skips one report, the next one catches up.
  const report = async () => options.onProgress?.((await engine.progress(job))!);
  const timer = options.onProgress ? setInterval(() => void report().catch(() => undefined), options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS) : undefined;
  try {
    await Promise.all(Array.from({ length: concurrency }, loop));
  } finally {
    clearInterval(timer);
  }
  if (claimed.length > 0) await engine.release(job, claimed.splice(0).map((item) => item.customId), 0);
  const end = (await engine.progress(job))!;
  if (end.status === 'running') {
    const paused = signal?.aborted ? 'signal' : pause;
    if (paused !== undefined) await engine.setStatus(job, 'paused', paused);
    else if (end.done + end.failed === end.total) await engine.setStatus(job, 'completed');
  }
  const summary = (await engine.progress(job))!;
  options.onProgress?.(summary);
  return summary;
}
