/**
 * `pgw embed`: embeds the non-blank lines of a file in batches and writes one JSON line per input,
 * `{ index, text, embedding }` (`index` = the 0-based line number), to `--out` or stdout.
 * Lines written before a failure stay written, so a partial run is not lost.
 */
import { once } from 'node:events';
import { open, readFile } from 'node:fs/promises';
import { EmbeddingClient } from '@pgw/client';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { withEnvSource, type MockableFlags } from '../local-mock.js';
import { formatMs, formatUsd } from '../report/format.js';
import { Progress } from '../progress.js';
import { UsageError } from '../usage-error.js';
import { warnOnStderr } from '../warn.js';

export interface EmbedFlags extends MockableFlags {
  file: string;
  out?: string;
  /** Texts per `embed()` call; default the scope's BATCH_SIZE. */
  batch?: number;
}

interface Input {
  index: number;
  text: string;
}

export async function runEmbed(flags: EmbedFlags, signal: AbortSignal): Promise<ExitCode> {
  const inputs = await readInputs(flags.file);
  const output = await openOutput(flags.out);
  try {
    return await withEnvSource(flags, 'text-embedding-3-small', async (envSource) => {
      const client = await EmbeddingClient.fromEnv(flags.scope, { ...envSource, warn: warnOnStderr });
      try {
        const totals = await embedAll(client, inputs, flags.batch ?? client.settings.batchSize, output, signal);
        const cost = totals.costUsd === undefined ? 'unknown' : formatUsd(totals.costUsd);
        const sources = [...totals.sources].join(', ') || '-';
        process.stderr.write(`sources ${sources} · latency ${formatMs(totals.latencyMs)} · tokens ${totals.tokens} · cost ${cost}\n`);
        return EXIT.ok;
      } finally {
        await client.close();
      }
    });
  } finally {
    await output.close();
  }
}

async function embedAll(client: EmbeddingClient, inputs: readonly Input[], batch: number, output: Output, signal: AbortSignal) {
  const progress = new Progress({ label: 'embedded', total: inputs.length });
  const totals = { tokens: 0, costUsd: 0 as number | undefined, latencyMs: 0, sources: new Set<string>() };
  try {
    for (let at = 0; at < inputs.length; at += batch) {
      const chunk = inputs.slice(at, at + batch);
      const response = await client.embed(chunk.map((input) => input.text), { signal });
      const lines = chunk.map((input, i) => JSON.stringify({ index: input.index, text: input.text, embedding: response.vectors[i] }));
      await output.write(`${lines.join('\n')}\n`);
      totals.tokens += response.usage.promptTokens;
      // One batch without a price makes the total unknown rather than too low.
      totals.costUsd = totals.costUsd === undefined || response.costUsd === undefined ? undefined : totals.costUsd + response.costUsd;
      totals.latencyMs += response.callStats.totalLatencyMs;
      for (const source of response.sources) totals.sources.add(source);
      progress.advance(chunk.length);
    }
  } finally {
    progress.finish();
  }
  return totals;
}

async function readInputs(file: string): Promise<Input[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError('--file', `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return text
    .split(/\r?\n/)
    .map((line, index) => ({ index, text: line }))
    .filter((input) => input.text.trim() !== '');
}

interface Output {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

/** The `--out` file (opened up front, so a bad path fails before any call) or stdout; writes wait for the sink. */
async function openOutput(path: string | undefined): Promise<Output> {
  if (path === undefined) {
    return {
      write: async (text) => {
        if (!process.stdout.write(text)) await once(process.stdout, 'drain');
      },
      close: async () => {},
    };
  }
  const handle = await open(path, 'w').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError('--out', `cannot write ${path} (${error.code ?? 'error'})`);
  });
  return {
    write: async (text) => {
      await handle.write(text);
    },
    close: () => handle.close(),
  };
}
