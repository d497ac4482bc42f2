/**
 * `pnpm bench [--quick] [--only chat,stream,governance,telemetry,memory,sources]`: runs the benchmarks of
 * docs/architecture.md#performance against the zero-logic upstream (a plain-node child process), prints a table per benchmark, and writes
 * bench/results.md + bench/results.json (a full set only) and a raw dump under bench/raw/.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { runChatBench } from './bench-chat.js';
import { runGovernanceBench } from './bench-governance.js';
import { runMemoryBench } from './bench-memory.js';
import { runSourcesBench } from './bench-sources.js';
import { runStreamBench } from './bench-stream.js';
import { runTelemetryBench } from './bench-telemetry.js';
import { machineLine } from './harness.js';
import { MockProcess } from './mock-process.js';
import { PLANS, type Mode } from './modes.js';
import { startPrivateRedisServer } from './redis-scope.js';
import { evaluateTargets, renderMarkdown, renderSections, targetsTable, type BenchResults, type RunInfo } from './report.js';
import { DEFAULT_PG_DSN } from './telemetry-stores.js';
import { ZeroUpstream } from './zero-upstream.js';

const BENCHMARKS = ['chat', 'stream', 'governance', 'telemetry', 'memory', 'sources'] as const;
type BenchName = (typeof BENCHMARKS)[number];

const RESULTS_DIR = new URL('../../../bench/', import.meta.url);

const NOTES = [
  'Every benchmark runs its contenders in one process, interleaved: one discarded warm-up round, then rounds whose start position rotates; the median round is reported, with the min–max spread.',
  'CPU µs per call is process.cpuUsage() (user + system) of the client process over a whole round, divided by the calls it completed; a telemetry contender’s round includes its final flush.',
  'The chat, stream and sources benchmarks run against a zero-logic upstream: plain node (no tsx), fixed bytes per route, the request body never parsed, in a child process. It still shares the two cores with the client, as do Redis, Postgres and other engineers’ test runs.',
  'Same connections for every chat contender (the transport’s default pool of 64, keep-alive); the SDKs get undici’s fetch over a 64-connection Agent. Retries: openai SDK and AI SDK at their default maxRetries 2, the gateway at its default 3 attempts; no call fails, so none retries.',
  'Streaming: one connection per stream for both contenders, so all streams are live at once.',
  'Memory runs in a plain-node child on the built dist with --expose-gc (figures after a forced GC); raw undici runs in the same shape as the baseline.',
];

async function loadavg(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8').catch(() => 'n/a')).trim();
}

function parseOptions() {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } },
    allowPositionals: false,
  });
  const only = values.only?.split(',').map((s) => s.trim()) as BenchName[] | undefined;
  const unknown = only?.filter((name) => !BENCHMARKS.includes(name));
  if (unknown && unknown.length > 0) throw new RangeError(`--only: unknown benchmark ${unknown.join(', ')} (known: ${BENCHMARKS.join(', ')})`);
  return { mode: (values.quick ? 'quick' : 'full') as Mode, only: only ?? [...BENCHMARKS] };
}

async function main(): Promise<void> {
  const { mode, only } = parseOptions();
  const plan = PLANS[mode];
  // A private redis-server unless REDIS_URL names one: the Redis CPU per call then counts only the bench's scripts.
  const privateRedis = process.env.REDIS_URL === undefined ? await startPrivateRedisServer() : undefined;
  const redisUrl = process.env.REDIS_URL ?? privateRedis!.url;
  const pgDsn = process.env.PGW_TEST_PG_DSN ?? DEFAULT_PG_DSN;
  const started = performance.now();
  const loadStart = await loadavg();
  console.log(`PolyGateway-TS benchmarks, ${mode} mode — ${machineLine()}\nload average ${loadStart}\n`);

  const mock = await MockProcess.start();
  const upstream = await ZeroUpstream.start();
  const results: BenchResults = {};
  const errors: Record<string, string> = {};
  const runners: Record<BenchName, () => Promise<void>> = {
    chat: async () => {
      const { callsPerRound, ...rest } = plan.chat;
      results.chat = await runChatBench({ upstream, redisUrl, pgDsn, ...rest, callsPerRound: (c) => callsPerRound[c] ?? 1000 });
    },
    stream: async () => {
      results.stream = await runStreamBench({ upstream, ...plan.stream });
    },
    governance: async () => {
      results.governance = await runGovernanceBench({ redisUrl, ...plan.governance });
    },
    telemetry: async () => {
      results.telemetry = await runTelemetryBench({ pgDsn, ...plan.telemetry });
    },
    memory: async () => {
      results.memory = await runMemoryBench({ mock, ...plan.memory });
    },
    sources: async () => {
      results.sources = await runSourcesBench({ upstream, ...plan.sources });
    },
  };
  try {
    for (const name of only) {
      const benchStarted = performance.now();
      console.log(`── ${name} …`);
      try {
        await runners[name]();
      } catch (error) {
        errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
        console.error(`${name} failed: ${errors[name]}`);
      }
      const section = renderSections(results).find(([bench]) => bench === name);
      if (section) console.log(`\n## ${section[1]}\n\n${section[2]}\n`);
      console.log(`   (${((performance.now() - benchStarted) / 1000).toFixed(0)} s)\n`);
    }
  } finally {
    await mock.close();
    await upstream.close();
    await privateRedis?.stop();
  }

  const info: RunInfo = {
    date: new Date().toISOString(),
    mode,
    machine: machineLine(),
    loadStart,
    loadEnd: await loadavg(),
    mock: `child process (pid ${mock.pid ?? '?'}), ${mock.url}`,
    upstream: `plain node child process (pid ${upstream.pid ?? '?'}), ${upstream.url}`,
    durationS: (performance.now() - started) / 1000,
  };
  const targets = evaluateTargets(results);
  console.log(`## Targets\n\n${targetsTable(targets)}\n\nrun time ${info.durationS.toFixed(0)} s, load average at end ${info.loadEnd}`);

  await mkdir(new URL('raw/', RESULTS_DIR), { recursive: true });
  const raw = JSON.stringify({ ...info, targets, results, errors }, null, 2);
  await writeFile(new URL(`raw/${info.date.replaceAll(':', '-')}-${mode}.json`, RESULTS_DIR), raw);
  if (only.length === BENCHMARKS.length) {
    const profiles = await readFile(new URL('profiles.md', RESULTS_DIR), 'utf8').catch(() => '');
    // serve-bench's last figures (a separate script: gateways in their own processes) ride along.
    const serve = await readFile(new URL('serve-results.md', RESULTS_DIR), 'utf8').catch(() => '');
    const serveSection = serve.trim() === '' ? '' : `\n## pgw serve against the Portkey gateway (bench/serve-results.md)\n\n${serve.trim()}\n`;
    await writeFile(new URL('results.md', RESULTS_DIR), renderMarkdown(info, results, targets, errors, NOTES, profiles) + serveSection);
    await writeFile(new URL('results.json', RESULTS_DIR), `${JSON.stringify({ ...info, targets, results: withoutRounds(results), errors }, null, 2)}\n`);
    console.log('\nwrote bench/results.md and bench/results.json');
  } else {
    console.log('\n--only: bench/results.md and results.json left as they were (raw dump written under bench/raw/)');
  }
  if (Object.keys(errors).length > 0) process.exitCode = 1;
}

/** The committed figures: medians and ratios, without the per-round rates (those stay in bench/raw/). */
function withoutRounds(results: BenchResults): unknown {
  return JSON.parse(JSON.stringify(results, (key, value: unknown) => (key === 'rates' || key === 'cpuUs' ? undefined : value)));
}

await main();
