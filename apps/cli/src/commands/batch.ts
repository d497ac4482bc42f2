/**
 * `pgw batch`: runs an OpenAI batch input file as a resumable job (@pgw/batch) and manages jobs by id:
 * `run`, `status`, `cancel`, `resume`, `retry --failed`. Progress: a bar on stderr when stdout is a
 * terminal, JSON progress lines on stdout otherwise.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  BatchInputError,
  BatchJobNotFoundError,
  estimateJob,
  parseBatchInput,
  jobIdOf,
  openBatchStore,
  readBatchSettings,
  resumeBatch,
  runBatch,
  writeBatchOutput,
  type BatchClients,
  type JobEstimate,
} from '@pgw/batch';
import type { BatchEngine, JobProgress } from '@pgw/core';
import { EmbeddingClient, GatewayClient, OcrClient } from '@pgw/client';
import { effectiveEnv } from '../effective-env.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { withMockedScopes, type EnvSource } from '../local-mock.js';
import { Progress } from '../progress.js';
import { formatUsd } from '../report/format.js';
import { UsageError } from '../usage-error.js';
import { warnOnStderr } from '../warn.js';

export interface BatchScopeFlags {
  scope: string;
  embedScope: string;
  ocrScope: string;
  envFile?: string;
  mock?: boolean;
}

export interface BatchRunFlags extends BatchScopeFlags {
  out: string;
  job?: string;
  tenant?: string;
  concurrency?: number;
  budgetUsd?: number;
  dryRun?: boolean;
}

export interface BatchJobFlags {
  envFile?: string;
  concurrency?: number;
  budgetUsd?: number;
  json?: boolean;
  mock?: boolean;
}

const KINDS = { '/v1/chat/completions': 'chat', '/v1/responses': 'chat', '/v1/messages': 'chat', '/v1/embeddings': 'embeddings', '/pgw/v1/ocr': 'ocr' } as const;
type Kind = (typeof KINDS)[keyof typeof KINDS];

async function withEngine<T>(envFile: string | undefined, run: (engine: BatchEngine) => Promise<T>): Promise<T> {
  // The engine `PGW_BATCH__ENGINE` names, as `pgw serve` chooses it (@pgw/batch's readBatchSettings).
  const engine = await openBatchStore(readBatchSettings(Object.fromEntries(effectiveEnv(envFile))));
  try {
    return await run(engine);
  } finally {
    await engine.close();
  }
}

/** The clients of the kinds of lines the job holds, each on its scope; closed by `close`. */
async function openClients(kinds: ReadonlySet<Kind>, scopes: BatchScopeFlags, source: EnvSource) {
  const options = { ...source, warn: warnOnStderr };
  const opened: { close(): Promise<void> }[] = [];
  const clients: BatchClients = {};
  try {
    if (kinds.has('chat')) opened.push((clients.chat = await GatewayClient.fromEnv(scopes.scope, options)));
    if (kinds.has('embeddings')) opened.push((clients.embeddings = await EmbeddingClient.fromEnv(scopes.embedScope, options)));
    if (kinds.has('ocr')) opened.push((clients.ocr = await OcrClient.fromEnv(scopes.ocrScope, options)));
  } catch (error) {
    await Promise.all(opened.map((client) => client.close()));
    throw error;
  }
  return { clients, close: () => Promise.all(opened.map((client) => client.close())).then(() => undefined) };
}

/** Under `--mock`, the scopes the job uses are served by the mock upstream. */
function withScopes<T>(flags: BatchScopeFlags, kinds: ReadonlySet<Kind>, run: (source: EnvSource) => Promise<T>): Promise<T> {
  const models = new Map<string, string>();
  if (kinds.has('chat')) models.set(flags.scope, 'gpt-4o-mini');
  if (kinds.has('embeddings')) models.set(flags.embedScope, 'text-embedding-3-small');
  return withMockedScopes(flags, () => models, run);
}

/** Shows progress: a bar on stderr when stdout is a terminal, JSON lines on stdout otherwise. */
function progressView(first: JobProgress): { update(progress: JobProgress): void; finish(): void } {
  if (!process.stdout.isTTY) {
    return {
      update: ({ job, status, total, done, failed, inFlight, costUsd }) =>
        void process.stdout.write(`${JSON.stringify({ job, status, total, done, failed, inFlight, costUsd })}\n`),
      finish: () => {},
    };
  }
  // The id on a line of its own, above the bar: it stays on the screen whatever the bar does.
  process.stderr.write(`job ${first.job}\n`);
  const bar = new Progress({ label: first.job, total: first.total, startAt: first.done + first.failed });
  return {
    update: (progress) => bar.set(progress.done + progress.failed, `failed ${progress.failed} · in flight ${progress.inFlight} · ${formatUsd(progress.costUsd)}`),
    finish: () => bar.finish(),
  };
}

/** Drives a job with a progress view, writes its output files, reports how it ended. */
async function driveWithProgress(engine: BatchEngine, out: string | undefined, drive: (onProgress: (progress: JobProgress) => void) => Promise<JobProgress>): Promise<ExitCode> {
  let view: ReturnType<typeof progressView> | undefined;
  let summary: JobProgress;
  try {
    summary = await drive((progress) => {
      view ??= progressView(progress);
      view.update(progress);
    });
  } finally {
    view?.finish();
  }
  // A fleet worker writes no files: the job's output is written by `run` or `resume` where it was started.
  const written = out === undefined ? undefined : await writeBatchOutput(engine, summary.job, { out });
  const files = written === undefined ? '' : `; ${written.results} results in ${out}, ${written.errors} errors`;
  process.stderr.write(
    `job ${summary.job} ${summary.status}${summary.pauseReason ? ` (${summary.pauseReason})` : ''}: ${summary.done} done, ${summary.failed} failed of ${summary.total}, cost ${formatUsd(summary.costUsd)}${files}\n`,
  );
  if (summary.status === 'paused' && summary.pauseReason === 'budget') {
    process.stderr.write(`out of its budget: raise it with pgw batch resume ${summary.job} --budget-usd <usd>\n`);
  }
  return summary.status === 'completed' ? EXIT.ok : summary.status === 'paused' ? EXIT.paused : EXIT.callFailed;
}

/** A bad line is the user's input error (exit 2), naming the line and the field. */
function parseInput(text: string) {
  try {
    return parseBatchInput(text);
  } catch (error) {
    if (error instanceof BatchInputError) throw new UsageError('<input>', error.message);
    throw error;
  }
}

export async function runBatchRun(input: string, flags: BatchRunFlags, signal: AbortSignal): Promise<ExitCode> {
  let text: string;
  try {
    text = await readFile(input, 'utf8');
  } catch (error) {
    throw new UsageError('<input>', `cannot read ${input} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const out = resolve(flags.out);
  const job = flags.job ?? jobIdOf(text, out);
  // The whole input is checked here, before a client is built; each kind of line it holds needs its scope.
  const items = parseInput(text);
  const kinds = new Set(items.map((item) => KINDS[item.url]));
  return withScopes(flags, kinds, async (source) => {
    const { clients, close } = await openClients(kinds, flags, source);
    try {
      if (flags.dryRun) return printEstimate(job, estimateJob(clients, items));
      const meta = { out, scope: flags.scope, embedScope: flags.embedScope, ocrScope: flags.ocrScope, kinds: [...kinds].join(',') };
      return await withEngine(flags.envFile, (engine) =>
        driveWithProgress(engine, out, (onProgress) =>
          runBatch(clients, text, {
            engine,
            job,
            meta,
            onProgress,
            signal,
            ...(flags.tenant !== undefined && { tenantId: flags.tenant }),
            ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
            ...(flags.budgetUsd !== undefined && { budgetUsd: flags.budgetUsd }),
          }),
        ),
      );
    } finally {
      await close();
    }
  });
}

function printEstimate(job: string, estimate: JobEstimate): ExitCode {
  const worst = estimate.worstCaseUsd === undefined ? 'unknown (a source has no price)' : formatUsd(estimate.worstCaseUsd);
  process.stdout.write(
    `job ${job} (dry run: nothing sent)\nitems ${estimate.items}\nestimated prompt tokens ${estimate.promptTokens}\n` +
      `output tokens at most ${estimate.maxOutputTokens}\nworst-case cost ${worst}\n`,
  );
  return EXIT.ok;
}

async function knownJob(engine: BatchEngine, job: string): Promise<JobProgress> {
  const progress = await engine.progress(job);
  if (progress === undefined) throw new BatchJobNotFoundError(job);
  return progress;
}

export async function runBatchStatus(job: string, flags: BatchJobFlags): Promise<ExitCode> {
  return withEngine(flags.envFile, async (engine) => {
    const { status, pauseReason, total, done, failed, inFlight, costUsd, budgetUsd, meta } = await knownJob(engine, job);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ job, status, pauseReason, total, done, failed, inFlight, costUsd, budgetUsd, out: meta['out'] })}\n`);
    } else {
      const budget = budgetUsd === undefined ? '' : ` of ${formatUsd(budgetUsd)}`;
      process.stdout.write(
        `job ${job}: ${status}${pauseReason ? ` (${pauseReason})` : ''}\n${done} done, ${failed} failed, ${inFlight} in flight, ${total - done - failed - inFlight} pending of ${total}\n` +
          `cost ${formatUsd(costUsd)}${budget}\n`,
      );
    }
    return EXIT.ok;
  });
}

export async function runBatchCancel(job: string, flags: BatchJobFlags): Promise<ExitCode> {
  return withEngine(flags.envFile, async (engine) => {
    await knownJob(engine, job);
    // A process driving the job stops claiming at its next item; its calls in flight are recorded.
    await engine.setStatus(job, 'cancelled');
    process.stderr.write(`job ${job} cancelled\n`);
    return EXIT.ok;
  });
}

/** `resume`, and `retry --failed` (`retryFailed` first): the job runs again from its stored items, on the scopes it was created with. */
export async function runBatchResume(job: string, flags: BatchJobFlags, signal: AbortSignal, retryFailed = false, worker = false): Promise<ExitCode> {
  return withEngine(flags.envFile, async (engine) => {
    const { meta } = await knownJob(engine, job);
    const out = worker ? undefined : meta['out'];
    if (!worker && out === undefined) throw new UsageError('<job>', `job ${job} was not created by pgw batch run: resume it with runBatch`);
    if (retryFailed) process.stderr.write(`job ${job}: ${await engine.retryFailed(job)} failed items to run again\n`);
    const scopes: BatchScopeFlags = {
      scope: meta['scope'] ?? 'LLM',
      embedScope: meta['embedScope'] ?? 'EMBED',
      ocrScope: meta['ocrScope'] ?? 'OCR',
      ...(flags.envFile !== undefined && { envFile: flags.envFile }),
      ...(flags.mock && { mock: true }),
    };
    const kinds = new Set((meta['kinds'] ?? '').split(',').filter(Boolean) as Kind[]);
    return withScopes(scopes, kinds, async (source) => {
      const { clients, close } = await openClients(kinds, scopes, source);
      try {
        return await driveWithProgress(engine, out, (onProgress) =>
          resumeBatch(clients, {
            engine,
            job,
            onProgress,
            signal,
            ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
            ...(flags.budgetUsd !== undefined && { budgetUsd: flags.budgetUsd }),
          }),
        );
      } finally {
        await close();
      }
    });
  });
}
