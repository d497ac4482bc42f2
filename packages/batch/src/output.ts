/**
 * The job's output files, written from the engine's store: each finished item once, in input order,
 * so a resumed or re-run job can never hold a custom_id twice. Written to a temporary file and renamed,
 * so a reader never sees half a file.
 */
import { rename, writeFile } from 'node:fs/promises';
import { isSuccess, type BatchEngine, type ItemResult } from '@pgw/core';

/** One line of OpenAI's batch output (and error) file. */
export function outputLine(result: ItemResult): string {
  return JSON.stringify({
    id: `batch_req_${result.requestId}`,
    custom_id: result.customId,
    response: { status_code: result.statusCode, request_id: result.requestId, body: result.body },
    error: null,
  });
}

export interface OutputFiles {
  /** The results (2xx answers). */
  out: string;
  /** The failures; default: `out` with `.errors.jsonl` for its `.jsonl`. */
  errors?: string;
}

export const errorFileOf = (out: string): string => `${out.replace(/\.jsonl$/, '')}.errors.jsonl`;

async function writeAtomically(path: string, lines: readonly string[]): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  await rename(temporary, path);
}

/** Writes both files; answers how many lines each holds. */
export async function writeBatchOutput(engine: BatchEngine, job: string, files: OutputFiles): Promise<{ results: number; errors: number }> {
  const all = await engine.results(job);
  const results = all.filter((result) => isSuccess(result.statusCode)).map(outputLine);
  const errors = all.filter((result) => !isSuccess(result.statusCode)).map(outputLine);
  await writeAtomically(files.out, results);
  await writeAtomically(files.errors ?? errorFileOf(files.out), errors);
  return { results: results.length, errors: errors.length };
}
