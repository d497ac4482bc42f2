/** The `pgw` program: commands, flags, and the mapping of every outcome to an exit code. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { SettingsError } from '@pgw/client';
import { EFFORTS } from '@pgw/core';
import { runChat } from './commands/chat.js';
import { runCheck } from './commands/check.js';
import { runEmbed } from './commands/embed.js';
import { runReport } from './commands/report.js';
import { EXIT, exitCodeFor, type ExitCode } from './exit-codes.js';
import { failureMessage } from './failure-message.js';
import { Interrupt } from './interrupt.js';
import { registerKeys } from './keys/keys-command.js';
import { MOCK_HINT } from './local-mock.js';
import { parseBucket, parseInstant, parsePort, positiveInteger, positiveUsd } from './flag-values.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** What the failure message needs to know of the command that ran. */
interface RunContext {
  /** The command takes `--mock`, so a configuration error can point at it. */
  mockable: boolean;
}

function buildProgram(interrupt: Interrupt, context: RunContext, done: (code: ExitCode) => void): Command {
  const program = new Command('pgw')
    .description('PolyGateway command line: chat, embed, check sources, report telemetry, serve, batch, keys.')
    .version(version)
    .exitOverride()
    .showHelpAfterError('(run pgw help <command> for its flags)');
  const envFile = () =>
    new Option('--env-file <path>', 'read keys from this env file beneath the process env (default ./.env if present)');
  const mock = () =>
    new Option('--mock', "run against a local mock upstream started for this command (replaces the scope's sources)");
  const mockable = <A extends unknown[]>(action: (...args: A) => Promise<void>) =>
    (...args: A) => {
      context.mockable = true;
      return action(...args);
    };

  program
    .command('chat')
    .description('send one message through the governed client; prints the answer and its call stats')
    .argument('<message>', 'the user message, or - to read it from stdin')
    .option('--scope <scope>', 'configuration scope (env key prefix)', 'LLM')
    .addOption(new Option('--effort <level>', 'reasoning effort').choices(EFFORTS))
    .option('--json', 'print the whole LLMResponse as JSON')
    .addOption(envFile())
    .addOption(mock())
    .action(mockable(async (message: string, flags) => done(await runChat(message, flags, interrupt.signal))));

  program
    .command('embed')
    .description('embed the non-blank lines of a file; writes {index, text, embedding} JSON lines')
    .requiredOption('--file <path>', 'input text, one item per line')
    .option('--out <path>', 'output JSONL file (default stdout)')
    .option('--scope <scope>', 'configuration scope (env key prefix)', 'EMBED')
    .addOption(new Option('--batch <n>', 'texts per call (default the scope BATCH_SIZE)').argParser(positiveInteger))
    .addOption(envFile())
    .addOption(mock())
    .action(mockable(async (flags) => done(await runEmbed(flags, interrupt.signal))));

  program
    .command('check')
    .description("validate a scope's configuration and probe each source (reachable, answers, latency)")
    .option('--scope <scope>', 'configuration scope (env key prefix)', 'LLM')
    .addOption(
      new Option('--kind <kind>', 'probe with a chat or an embedding (default: embed for scope EMBED)').choices(['chat', 'embed']),
    )
    .addOption(
      new Option('--timeout <seconds>', 'budget of each probe').default(15_000, '15').argParser((t) => positiveInteger(t) * 1000),
    )
    .addOption(envFile())
    .addOption(mock())
    .action(mockable(async (flags) => done(await runCheck(flags, interrupt.signal))));

  program
    .command('report')
    .description('summarise telemetry: calls, retries, failures by type, latency percentiles, cost (table, JSON, HTML)')
    .addOption(new Option('--sqlite <path>', 'SQLite telemetry file (default PGW_SQLITE_PATH)').conflicts('dsn'))
    .addOption(new Option('--dsn <dsn>', 'PostgreSQL DSN (default PGW_TELEMETRY_DSN)'))
    .addOption(new Option('--pg-schema <name>', 'schema of the PostgreSQL table (default public)').conflicts('sqlite'))
    .addOption(
      new Option('--since <time>', 'from this ISO time (UTC unless zoned) or duration ago (24h, 7d)').argParser((t) => parseInstant(t)),
    )
    .addOption(new Option('--until <time>', 'until this time, exclusive (same forms as --since)').argParser((t) => parseInstant(t)))
    .addOption(
      new Option('--bucket <duration>', 'width of the calls-over-time buckets (default: fits the range)').argParser(parseBucket),
    )
    .option('--html <file>', 'also write a self-contained HTML page with charts')
    .option('--json', 'print the summary as JSON instead of a table')
    .addOption(envFile())
    .action(async (flags) => done(await runReport(flags)));

  program
    .command('serve')
    .description('serve the governed clients as an OpenAI-compatible HTTP server (chat completions, embeddings, models, metrics)')
    .option('--host <address>', 'address to bind (without PGW_SERVER__KEYS only a loopback address)', '127.0.0.1')
    .addOption(new Option('--port <port>', 'port to bind (0 = any free port)').default(8787).argParser(parsePort))
    .option('--allow-unauthenticated', 'bind a non-loopback address although no API key is configured')
    .addOption(envFile())
    .addOption(new Option('--mock', 'serve every scope from a local mock upstream started with the server (replaces their sources)'))
    .action(async (flags) => {
      // The HTTP server and its framework load only for this command: every other command starts without them.
      const { runServe } = await import('./commands/serve.js');
      done(await runServe(flags, interrupt.signal));
    });

  const batch = program
    .command('batch')
    .description('run an OpenAI batch input file as a resumable job, each line a governed call of the batch class; manage jobs by id');
  // The batch engine (and its native SQLite driver) loads only for these commands.
  const commands = () => import('./commands/batch.js');
  const concurrency = () => new Option('--concurrency <n>', 'items in flight at most (default 8)').argParser(positiveInteger);
  const budget = () => new Option('--budget-usd <usd>', "the job's own spend budget; out of it the job pauses").argParser(positiveUsd);
  batch
    .command('run')
    .description('run (or resume: the same input and output resume the same job) a batch input file')
    .argument('<input>', 'the input JSONL (OpenAI batch lines)')
    .requiredOption('--out <path>', 'output JSONL (results); failures go to <out>.errors.jsonl')
    .option('--scope <scope>', 'configuration scope of the chat lines', 'LLM')
    .option('--embed-scope <scope>', 'configuration scope of the embedding lines', 'EMBED')
    .option('--ocr-scope <scope>', 'configuration scope of the OCR lines', 'OCR')
    .option('--job <id>', 'the job id (default: a digest of the input and the output path)')
    .option('--tenant <id>', 'the tenant the calls are made for')
    .addOption(concurrency())
    .addOption(budget())
    .option('--dry-run', 'print the item count, estimated tokens and worst-case cost; send nothing')
    .addOption(envFile())
    .addOption(mock())
    .action(mockable(async (input: string, flags) => done(await (await commands()).runBatchRun(input, flags, interrupt.signal))));
  batch
    .command('status')
    .description("a job's state, counts and cost")
    .argument('<job>', 'the job id')
    .option('--json', 'print it as JSON')
    .addOption(envFile())
    .action(async (job: string, flags) => done(await (await commands()).runBatchStatus(job, flags)));
  batch
    .command('cancel')
    .description('cancel a job for good (a process driving it stops claiming items)')
    .argument('<job>', 'the job id')
    .addOption(envFile())
    .action(async (job: string, flags) => done(await (await commands()).runBatchCancel(job, flags)));
  batch
    .command('resume')
    .description('resume a paused or interrupted job from its stored items; --budget-usd raises its budget')
    .argument('<job>', 'the job id')
    .addOption(concurrency())
    .addOption(budget())
    .addOption(envFile())
    .addOption(mock())
    .action(mockable(async (job: string, flags) => done(await (await commands()).runBatchResume(job, flags, interrupt.signal))));
  batch
    .command('worker')
    .description('drive a job of the bullmq engine beside other workers (any machine, same Redis and PostgreSQL); writes no output file')
    .argument('<job>', 'the job id (created by pgw batch run with PGW_BATCH__ENGINE=bullmq)')
    .addOption(concurrency())
    .addOption(envFile())
    .addOption(mock())
    .action(mockable(async (job: string, flags) => done(await (await commands()).runBatchResume(job, flags, interrupt.signal, false, true))));
  batch
    .command('retry')
    .description("run a job's failed items again as a new attempt")
    .argument('<job>', 'the job id')
    .requiredOption('--failed', 'the failed items (the only kind of retry)')
    .addOption(concurrency())
    .addOption(budget())
    .addOption(envFile())
    .addOption(mock())
    .action(mockable(async (job: string, flags) => done(await (await commands()).runBatchResume(job, flags, interrupt.signal, true))));

  registerKeys(program, interrupt.signal, done);

  return program;
}

/** Runs `pgw` with `argv` (without node and the script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const interrupt = new Interrupt();
  let code: ExitCode = EXIT.ok;
  const context: RunContext = { mockable: false };
  try {
    await buildProgram(interrupt, context, (c) => (code = c)).parseAsync(argv, { from: 'user' });
    return interrupt.fired ? EXIT.interrupted : code;
  } catch (error) {
    if (interrupt.fired) return EXIT.interrupted;
    const exit = exitCodeFor(error);
    // Commander has already printed its own messages (usage errors, help).
    if (!(error instanceof CommanderError)) process.stderr.write(`${failureMessage(error)}\n`);
    if (error instanceof SettingsError && context.mockable) process.stderr.write(`${MOCK_HINT}\n`);
    return exit;
  } finally {
    interrupt.dispose();
  }
}
