/**
 * `pnpm --filter @pgw/bench serve-bench`: `pgw serve` and the Portkey gateway (and its fork llmops)
 * side by side in front of the same zero-logic upstream, loaded by autocannon at 1, 64 and 512
 * connections with one whole-JSON chat completion per request (Portkey cannot pass a stream
 * through on Node: apps/interop/README.md). Prints requests/s, the latency each adds over calling
 * the upstream directly (p50, p99), and the CPU each gateway process spent per request. Two last
 * levels run 64 connections against an upstream that answers after 100 ms, and after 50–150 ms:
 * there the upstream, not the gateways' CPU, bounds the throughput. At a fixed 100 ms the 64
 * connections stay in step and reach a gateway in waves of 64; with the spread they fall out of
 * step, as on a real upstream, so the added latency is the gateway's own, not its queue.
 * Then `pgw serve` alone, at 1 and 64 connections: the same governed call through each of its
 * protocols' routes — Chat Completions, Responses, Anthropic Messages — whole and streamed, so the
 * CPU a route adds per request beside Chat Completions is the difference of the same process's CPU.
 * Then where a request's time goes inside `pgw serve` at 512 connections (src/serve-stages.ts), the
 * run's first seconds apart from the rest. Each level gives p50/p99/p99.9 and the requests/s one
 * core of each gateway carries (10⁶ ÷ its CPU µs per request).
 * Linux only (CPU from /proc/<pid>/stat). `SERVE_BENCH_S` sets the seconds per run (default 8);
 * `--quick` runs each for 1 s and prints without writing bench/serve-results.md, to check the bench;
 * `--stages` runs and prints the stage breakdown alone.
 */
import type { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { llmopsRouting, portkeyRouting, startChildServer, startLlmopsGateway, startPortkeyGateway, type ChildServer } from '@pgw/interop';
import { interleave, machineLine, median, percentiles, ratio } from './harness.js';
import { cpuMs } from '../plain/measure.mjs';
import { STREAM_TOKENS } from './mock-script.js';
import { stageTable, STAGE_CONNECTIONS, type Answer, type StampedRequest } from './serve-stages.js';
import { ZeroUpstream } from './zero-upstream.js';

const CONNECTIONS = [1, 64, 512];
const QUICK = process.argv.includes('--quick');
/** Only the stage breakdown (below), printed: to look at the tail without the whole bench. */
const STAGES_ONLY = process.argv.includes('--stages');
const RUN_S = QUICK ? 1 : Number(process.env['SERVE_BENCH_S'] ?? 8);
/**
 * Each contender's warm-up at 8 connections. A freshly started `pgw serve` answers one connection with
 * a p99 of 3–5 × its p50 for its first 15–20 s under load, while V8 settles (its young-generation
 * collections take 2–3 ms, then 1.2; bench/profiles.md): the levels measure the steady state.
 */
const WARMUP_S = QUICK ? 1 : 15;
const PGW_BIN = fileURLToPath(new URL('../../cli/bin/pgw.mjs', import.meta.url));
const RESULTS_DIR = new URL('../../../bench/', import.meta.url);
const [DIRECT, PGW, PORTKEY] = ['direct (no gateway)', 'pgw serve', 'Portkey 1.15.2'];
const body = (model: string, stream = false) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], ...(stream && { stream }) });
/** The levels where the upstream is the bottleneck: its route, its scope and model for pgw serve. */
const UNSATURATED = [
  { route: 'slow', scope: 'SLOW', model: 'bench-slow', label: '64, 100 ms upstream' },
  { route: 'spread', scope: 'SPREAD', model: 'bench-spread', label: '64, 50–150 ms upstream' },
] as const;
const UNSATURATED_CONNECTIONS = 64;
/** What a user of an LLM feels: the answer after 100 ms and after 1 s, at each level, direct and through pgw serve. */
const FELT = [
  { route: 'slow', model: 'bench-slow', label: '100 ms', seconds: RUN_S },
  // A 1 s answer needs a few seconds per run for its percentiles, --quick included.
  { route: 'second', model: 'bench-second', label: '1 s', seconds: Math.max(RUN_S, 4) },
] as const;
/** pgw serve's scope of each upstream route but the zero-latency one (LLM) and the streamed one. */
const SCOPED = [...UNSATURATED, { route: 'second', scope: 'SECOND', model: 'bench-second' }] as const;
/** Below this many requests in a run, the CPU per request is mostly the server's idle work and 10 ms ticks: not shown. */
const MIN_REQUESTS_FOR_CPU = 200;
/** pgw serve's protocols: the request of each that makes the same governed call (one user message, "Hello"). */
const ROUTES = [
  { name: 'chat completions', path: '/v1/chat/completions', body },
  { name: 'responses', path: '/v1/responses', body: (model: string, stream = false) => JSON.stringify({ model, input: 'Hello', ...(stream && { stream }) }) },
  { name: 'messages', path: '/v1/messages', body: (model: string, stream = false) => JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }], ...(stream && { stream }) }) },
] as const;
/** Whole, the chat JSON; streamed, 200 tokens in one SSE write (the upstream's /burst), each a delta every route encodes. */
const ANSWERS = [
  { label: 'whole', model: 'bench-model', stream: false },
  { label: `streamed, ${STREAM_TOKENS} tokens`, model: 'bench-streamed', stream: true },
] as const;
const ROUTE_CONNECTIONS = [1, 64];
/** The routes take turns (interleave: a warm-up round, then each round in a rotated order), so a drift of the machine falls on all alike. */
const ROUTE_ROUNDS = QUICK ? 1 : 4;
interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number | undefined;
  body: string;
  /** Each request named by a number of its own: its headers and body made per request. */
  numbered?: (id: number) => { headers: Record<string, string>; body: string };
}

interface Run {
  requestsPerS: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  cpuUsPerRequest: number | undefined;
  failures: number;
}

const cpuMsOf = (pid: number | undefined): number | undefined => (pid === undefined ? undefined : cpuMs(pid));

/** autocannon's per-request hook: each request gets the next number's headers and body. */
function numberedRequests(numbered: NonNullable<Target['numbered']>) {
  let next = 0;
  return (request: autocannon.Request) => {
    const { headers, body: text } = numbered(next++);
    return { ...request, headers: { ...request.headers, ...headers }, body: text };
  };
}

async function load(target: Target, connections: number, seconds: number, answers?: Answer[]): Promise<Run> {
  const before = cpuMsOf(target.pid);
  // The instance is both the run's promise and an emitter of its responses.
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', ...target.headers },
    body: target.body,
    connections,
    duration: seconds,
    ...(target.numbered && { requests: [{ setupRequest: numberedRequests(target.numbered) }] }),
  }) as unknown as EventEmitter & PromiseLike<autocannon.Result>;
  // autocannon's own histogram keeps whole milliseconds; its response event has the exact duration.
  const latencies: number[] = [];
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status < 200 || status >= 300) return;
    latencies.push(ms);
    answers?.push({ atMs: Date.now(), latencyMs: ms });
  });
  const result = await instance;
  const after = cpuMsOf(target.pid);
  const requests = result.requests.total;
  const [p50Ms, p99Ms, p999Ms] = percentiles(latencies, [50, 99, 99.9]) as [number, number, number];
  return {
    requestsPerS: requests / seconds,
    p50Ms,
    p99Ms,
    p999Ms,
    cpuUsPerRequest: before === undefined || after === undefined || requests === 0 ? undefined : ((after - before) * 1000) / requests,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

async function startPgwServe(upstream: ZeroUpstream, cwd: string, extraEnv: Record<string, string> = {}): Promise<ChildServer> {
  return startChildServer(
    {
      name: 'pgw serve',
      entry: PGW_BIN,
      args: ['serve', '--port', '0'],
      cwd,
      env: {
        LLM__SOURCE__MAIN__BASE_URL: upstream.baseUrl('chat'),
        LLM__SOURCE__MAIN__MODEL: 'bench-model',
        LLM__SOURCE__MAIN__STREAM: 'false',
        ...Object.fromEntries(
          SCOPED.flatMap(({ route, scope }) => [
            [`${scope}__SOURCE__MAIN__BASE_URL`, upstream.baseUrl(route)],
            [`${scope}__SOURCE__MAIN__MODEL`, 'bench-model'],
            [`${scope}__SOURCE__MAIN__STREAM`, 'false'],
          ]),
        ),
        // The streamed answers' scope: the upstream streams, so each token is a delta through the route.
        STREAMED__SOURCE__MAIN__BASE_URL: upstream.baseUrl('burst'),
        STREAMED__SOURCE__MAIN__MODEL: 'bench-model',
        PGW_SERVER__MODELS: JSON.stringify({ 'bench-model': 'LLM', 'bench-streamed': 'STREAMED', ...Object.fromEntries(SCOPED.map(({ model, scope }) => [model, scope])) }),
        // Every request must reach the upstream, as it does through the relays.
        PGW_CACHE_BACKEND: 'none',
        ...extraEnv,
      },
    },
    { readyTimeoutMs: 60_000 },
  );
}

/**
 * The stage breakdown: a `pgw serve` of its own with plain/serve-stages.mjs loaded, stamping each
 * request as the server accepts, parses, admits, sends and answers it, loaded at 512 connections;
 * the stamps and the load generator's own latencies, each split into the run's first seconds and
 * the rest (apps/bench/src/serve-stages.ts).
 */
async function stageBreakdown(upstream: ZeroUpstream, cwd: string): Promise<string[]> {
  const file = join(cwd, 'stages.json');
  const preload = fileURLToPath(new URL('../plain/serve-stages.mjs', import.meta.url));
  const server = await startPgwServe(upstream, cwd, { NODE_OPTIONS: `--import=${preload}`, PGW_BENCH_STAGES_FILE: file });
  // SIGUSR2: the server writes the stamps taken since the last signal.
  const takeStamps = async (): Promise<StampedRequest[]> => {
    rmSync(file, { force: true });
    process.kill(server.pid, 'SIGUSR2');
    const deadline = Date.now() + 10_000;
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new Error(`pgw serve wrote no stamps to ${file} within 10 s:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return JSON.parse(readFileSync(file, 'utf8')) as StampedRequest[];
  };
  try {
    // One id per request, in a header and in the message the server forwards (plain/serve-stages.mjs).
    const numbered = (id: number) => ({ headers: { 'x-bench-id': String(id) }, body: JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: `Hello [bench:${id}]` }] }) });
    const target: Target = { name: PGW, url: `${server.url}/v1/chat/completions`, headers: {}, pid: server.pid, body: body('bench-model'), numbered };
    await load(target, 8, WARMUP_S);
    await takeStamps();
    const answers: Answer[] = [];
    const startMs = Date.now();
    const run = await load(target, STAGE_CONNECTIONS, RUN_S, answers);
    return stageTable(startMs, answers, await takeStamps(), run.requestsPerS);
  } finally {
    await server.stop();
  }
}

const fmt = (n: number | undefined, digits = 2) => (n === undefined ? '-' : n.toFixed(digits));

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'pgw-serve-bench-'));
  const upstream = await ZeroUpstream.start();
  const children: ChildServer[] = [];
  try {
    if (STAGES_ONLY) return void console.log((await stageBreakdown(upstream, cwd)).join('\n'));
    const [pgw, portkey, llmops] = await Promise.all([startPgwServe(upstream, cwd), startPortkeyGateway(), startLlmopsGateway()]);
    children.push(pgw, portkey, llmops);
    const targetsOn = (route: 'chat' | (typeof SCOPED)[number]['route'], model: string): Target[] => {
      const base = upstream.baseUrl(route);
      return [
        { name: DIRECT, url: `${base}/chat/completions`, headers: {}, pid: undefined, body: body('bench-model') },
        { name: PGW, url: `${pgw.url}/v1/chat/completions`, headers: {}, pid: pgw.pid, body: body(model) },
        { name: PORTKEY, url: `${portkey.url}/v1/chat/completions`, headers: portkeyRouting(base), pid: portkey.pid, body: body('bench-model') },
        { name: 'llmops 0.6.10', url: `${llmops.url}/v1/chat/completions`, headers: llmopsRouting(base), pid: llmops.pid, body: body('bench-model') },
      ];
    };
    const targets = targetsOn('chat', 'bench-model');
    const routeTargets = ANSWERS.map((answer) => ({
      answer,
      targets: ROUTES.map((route): Target => ({ name: route.name, url: `${pgw.url}${route.path}`, headers: {}, pid: pgw.pid, body: route.body(answer.model, answer.stream) })),
    }));
    for (const target of [...targets, ...SCOPED.flatMap(({ route, model }) => targetsOn(route, model))]) await load(target, 8, WARMUP_S);
    const loadStart = readFileSync('/proc/loadavg', 'utf8').trim();
    const table = [
      '| connections | contender | requests/s | p50 ms | p99 ms | p99.9 ms | added p50 ms | added p99 ms | CPU µs/request | requests/s one core carries | failures |',
      '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    const verdicts: string[] = [];
    const level = async (label: string, connections: number, levelTargets: Target[]) => {
      const runs = new Map<string, Run>();
      for (const target of levelTargets) runs.set(target.name, await load(target, connections, RUN_S));
      const direct = runs.get(DIRECT)!;
      for (const [name, run] of runs) {
        const added = name === DIRECT ? ['', ''] : [fmt(run.p50Ms - direct.p50Ms), fmt(run.p99Ms - direct.p99Ms)];
        const perCore = run.cpuUsPerRequest === undefined ? undefined : 1e6 / run.cpuUsPerRequest;
        table.push(`| ${label} | ${name} | ${fmt(run.requestsPerS, 0)} | ${fmt(run.p50Ms)} | ${fmt(run.p99Ms)} | ${fmt(run.p999Ms)} | ${added[0]} | ${added[1]} | ${fmt(run.cpuUsPerRequest, 0)} | ${fmt(perCore, 0)} | ${run.failures} |`);
      }
      return { ours: runs.get(PGW)!, portkey: runs.get(PORTKEY)!, direct };
    };
    for (const connections of CONNECTIONS) {
      const { ours, portkey, direct } = await level(String(connections), connections, targets);
      const ahead = ours.requestsPerS / portkey.requestsPerS;
      verdicts.push(`| c=${connections} | requests/s ahead of Portkey | ${fmt(ahead)}× | ${ahead > 1 ? 'met' : 'not met'} |`);
      const spread = ours.p99Ms / ours.p50Ms;
      verdicts.push(`| c=${connections} | p99 ≤ 3 × p50 | ${fmt(spread)}× | ${spread <= 3 ? 'met' : 'not met'} |`);
      verdicts.push(`| c=${connections} | p99 below Portkey's | ${fmt(ours.p99Ms)} vs ${fmt(portkey.p99Ms)} ms | ${ours.p99Ms < portkey.p99Ms ? 'met' : 'not met'} |`);
      if (connections === 64) {
        const added = ours.p50Ms - direct.p50Ms;
        verdicts.push(`| c=64, zero-latency upstream (CPU-bound) | added p50 < 1 ms | ${fmt(added)} ms | ${added < 1 ? 'met' : 'not met'} |`);
      }
    }
    for (const { route, model, label } of UNSATURATED) {
      const { ours, direct } = await level(label, UNSATURATED_CONNECTIONS, targetsOn(route, model));
      const added = ours.p50Ms - direct.p50Ms;
      verdicts.push(`| c=${label} | added p50 < 1 ms | ${fmt(added)} ms | ${added < 1 ? 'met' : 'not met'} |`);
    }
    const felt = [
      '| connections | upstream answers after | direct p50 ms | direct p99 ms | pgw serve p50 ms | pgw serve p99 ms | added p50 ms | added p99 ms | pgw serve requests/s | requests/s one core of pgw serve carries | failures |',
      '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const connections of CONNECTIONS) {
      for (const { route, model, label, seconds } of FELT) {
        const [direct, ours] = targetsOn(route, model);
        const directRun = await load(direct!, connections, seconds);
        const run = await load(ours!, connections, seconds);
        const perCore = run.cpuUsPerRequest === undefined || run.requestsPerS * seconds < MIN_REQUESTS_FOR_CPU ? undefined : 1e6 / run.cpuUsPerRequest;
        felt.push(
          `| ${connections} | ${label} | ${fmt(directRun.p50Ms)} | ${fmt(directRun.p99Ms)} | ${fmt(run.p50Ms)} | ${fmt(run.p99Ms)} | ${fmt(run.p50Ms - directRun.p50Ms)} | ${fmt(run.p99Ms - directRun.p99Ms)} | ${fmt(run.requestsPerS, 0)} | ${fmt(perCore, 0)} | ${directRun.failures + run.failures} |`,
        );
      }
    }
    const routeTable = [
      '| connections | answer | route | requests/s | p50 ms | CPU µs/request | added CPU µs/request | × chat completions | failures |',
      '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const connections of ROUTE_CONNECTIONS) {
      for (const { answer, targets: byRoute } of routeTargets) {
        const rounds = new Map<string, Run[]>(byRoute.map((target) => [target.name, []]));
        const contenders = byRoute.map((target) => ({
          name: target.name,
          round: async ({ warmUp }: { warmUp: boolean }) => {
            const run = await load(target, connections, RUN_S / ROUTE_ROUNDS);
            if (!warmUp) rounds.get(target.name)!.push(run);
            return run.requestsPerS * (RUN_S / ROUTE_ROUNDS);
          },
        }));
        // Only its order is used: its own CPU figures are this process's, autocannon's, not the server's.
        await interleave(contenders, { rounds: ROUTE_ROUNDS });
        const medianOf = (runs: readonly Run[], field: (run: Run) => number | undefined) => median(runs.map(field).filter((value) => value !== undefined));
        const chatCpu = medianOf(rounds.get(ROUTES[0].name)!, (run) => run.cpuUsPerRequest);
        for (const [name, runs] of rounds) {
          const cpu = medianOf(runs, (run) => run.cpuUsPerRequest);
          const beside = name === ROUTES[0].name ? ['', ''] : [fmt(cpu - chatCpu, 0), `${fmt(ratio(cpu, chatCpu))}×`];
          const failures = runs.reduce((sum, run) => sum + run.failures, 0);
          routeTable.push(`| ${connections} | ${answer.label} | ${name} | ${fmt(medianOf(runs, (run) => run.requestsPerS), 0)} | ${fmt(medianOf(runs, (run) => run.p50Ms))} | ${fmt(cpu, 0)} | ${beside[0]} | ${beside[1]} | ${failures} |`);
        }
      }
    }
    const stages = await stageBreakdown(upstream, cwd);
    const loadEnd = readFileSync('/proc/loadavg', 'utf8').trim();
    const report = [
      `- Date: ${new Date().toISOString()}; ${RUN_S} s per run; ${machineLine()}`,
      `- Load average (/proc/loadavg) at start: ${loadStart}; at end: ${loadEnd}`,
      `- One whole-JSON chat completion per request against the zero-logic upstream (the last levels: the same answer after 100 ms, and after 50–150 ms); autocannon 8.0.0 in the bench process, the upstream and each gateway in a process of its own, each warmed up for ${WARMUP_S} s at 8 connections first; added = contender − direct at the same concurrency. Produced by \`pnpm --filter @pgw/bench serve-bench\` (apps/bench/README.md).`,
      '- Bifrost is not among the peers: `@maximhq/bifrost` 1.6.3, on the npm registry, is a 12 KB wrapper with no dependencies that downloads the gateway’s Go binary from downloads.getmaxim.ai when first run; this machine reaches the npm registry and Debian’s packages only (the download is refused), and building Bifrost from its source needs Go modules from outside too.',
      '',
      '| level | target | measured | verdict |',
      '| --- | --- | ---: | --- |',
      ...verdicts,
      '',
      ...table,
      '',
      '### What a user feels',
      '',
      `An upstream that answers after 100 ms and after 1 s (an LLM answers no faster), called directly and through \`pgw serve\` at each level, one after the other; added = pgw serve − direct. The requests/s one core carries is 10⁶ ÷ pgw serve's CPU µs per request in that run (\`-\` below ${MIN_REQUESTS_FOR_CPU} requests, where the server's idle work and the 10 ms CPU ticks dominate). Runs of the 1 s upstream take ${FELT[1].seconds} s.`,
      '',
      ...felt,
      '',
      ...stages,
      '',
      `### pgw serve's routes beside Chat Completions`,
      '',
      `The same governed call through each protocol's route of \`pgw serve\`; whole: the chat JSON, streamed: ${STREAM_TOKENS} tokens in one SSE write (the upstream's \`/burst\`). At each level the routes take turns, ${ROUTE_ROUNDS} rounds of ${RUN_S / ROUTE_ROUNDS} s after a warm-up round, each in a rotated order; the figures are the rounds' medians. CPU is the pgw serve process's; added = route − chat completions, × = route ÷ chat completions, beside the same answer at the same concurrency.`,
      '',
      ...routeTable,
      '',
    ].join('\n');
    console.log(report);
    if (QUICK) return void console.log('--quick: bench/serve-results.md left as it was');
    await writeFile(new URL('serve-results.md', RESULTS_DIR), report);
    console.log('wrote bench/serve-results.md (pnpm bench puts it into bench/results.md)');
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await upstream.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
