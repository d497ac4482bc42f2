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
 * Linux only (CPU from /proc/<pid>/stat). `SERVE_BENCH_S` sets the seconds per run (default 8).
 */
import type { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { llmopsRouting, portkeyRouting, startChildServer, startLlmopsGateway, startPortkeyGateway, type ChildServer } from '@pgw/interop';
import { machineLine } from './harness.js';
import { ZeroUpstream } from './zero-upstream.js';

const CONNECTIONS = [1, 64, 512];
const RUN_S = Number(process.env['SERVE_BENCH_S'] ?? 8);
const WARMUP_S = 2;
const PGW_BIN = fileURLToPath(new URL('../../cli/bin/pgw.mjs', import.meta.url));
const RESULTS_DIR = new URL('../../../bench/', import.meta.url);
const [DIRECT, PGW, PORTKEY] = ['direct (no gateway)', 'pgw serve', 'Portkey 1.15.2'];
const body = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] });
/** The levels where the upstream is the bottleneck: its route, its scope and model for pgw serve. */
const UNSATURATED = [
  { route: 'slow', scope: 'SLOW', model: 'bench-slow', label: '64, 100 ms upstream' },
  { route: 'spread', scope: 'SPREAD', model: 'bench-spread', label: '64, 50–150 ms upstream' },
] as const;
const UNSATURATED_CONNECTIONS = 64;
/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s. */
const TICK_MS = 10;

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  pid: number | undefined;
  body: string;
}

interface Run {
  requestsPerS: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerRequest: number | undefined;
  failures: number;
}

function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function load(target: Target, connections: number, seconds: number): Promise<Run> {
  const before = cpuMs(target.pid);
  // The instance is both the run's promise and an emitter of its responses.
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench', ...target.headers },
    body: target.body,
    connections,
    duration: seconds,
  }) as unknown as EventEmitter & PromiseLike<autocannon.Result>;
  // autocannon's own histogram keeps whole milliseconds; its response event has the exact duration.
  const latencies: number[] = [];
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  const after = cpuMs(target.pid);
  const requests = result.requests.total;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerS: requests / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    cpuUsPerRequest: before === undefined || after === undefined || requests === 0 ? undefined : ((after - before) * 1000) / requests,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

async function startPgwServe(upstream: ZeroUpstream, cwd: string): Promise<ChildServer> {
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
          UNSATURATED.flatMap(({ route, scope }) => [
            [`${scope}__SOURCE__MAIN__BASE_URL`, upstream.baseUrl(route)],
            [`${scope}__SOURCE__MAIN__MODEL`, 'bench-model'],
            [`${scope}__SOURCE__MAIN__STREAM`, 'false'],
          ]),
        ),
        PGW_SERVER__MODELS: JSON.stringify({ 'bench-model': 'LLM', ...Object.fromEntries(UNSATURATED.map(({ model, scope }) => [model, scope])) }),
        // Every request must reach the upstream, as it does through the relays.
        PGW_CACHE_BACKEND: 'none',
      },
    },
    { readyTimeoutMs: 60_000 },
  );
}

const percentile = (sorted: readonly number[], q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
const fmt = (n: number | undefined, digits = 2) => (n === undefined ? '-' : n.toFixed(digits));

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'pgw-serve-bench-'));
  const upstream = await ZeroUpstream.start();
  const children: ChildServer[] = [];
  try {
    const [pgw, portkey, llmops] = await Promise.all([startPgwServe(upstream, cwd), startPortkeyGateway(), startLlmopsGateway()]);
    children.push(pgw, portkey, llmops);
    const targetsOn = (route: 'chat' | (typeof UNSATURATED)[number]['route'], model: string): Target[] => {
      const base = upstream.baseUrl(route);
      return [
        { name: DIRECT, url: `${base}/chat/completions`, headers: {}, pid: undefined, body: body('bench-model') },
        { name: PGW, url: `${pgw.url}/v1/chat/completions`, headers: {}, pid: pgw.pid, body: body(model) },
        { name: PORTKEY, url: `${portkey.url}/v1/chat/completions`, headers: portkeyRouting(base), pid: portkey.pid, body: body('bench-model') },
        { name: 'llmops 0.6.10', url: `${llmops.url}/v1/chat/completions`, headers: llmopsRouting(base), pid: llmops.pid, body: body('bench-model') },
      ];
    };
    const targets = targetsOn('chat', 'bench-model');
    for (const target of [...targets, ...UNSATURATED.flatMap(({ route, model }) => targetsOn(route, model))]) await load(target, 8, WARMUP_S);
    const loadStart = readFileSync('/proc/loadavg', 'utf8').trim();
    const table = ['| connections | contender | requests/s | p50 ms | p99 ms | added p50 ms | added p99 ms | CPU µs/request | failures |', '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
    const verdicts: string[] = [];
    const level = async (label: string, connections: number, levelTargets: Target[]) => {
      const runs = new Map<string, Run>();
      for (const target of levelTargets) runs.set(target.name, await load(target, connections, RUN_S));
      const direct = runs.get(DIRECT)!;
      for (const [name, run] of runs) {
        const added = name === DIRECT ? ['', ''] : [fmt(run.p50Ms - direct.p50Ms), fmt(run.p99Ms - direct.p99Ms)];
        table.push(`| ${label} | ${name} | ${fmt(run.requestsPerS, 0)} | ${fmt(run.p50Ms)} | ${fmt(run.p99Ms)} | ${added[0]} | ${added[1]} | ${fmt(run.cpuUsPerRequest, 0)} | ${run.failures} |`);
      }
      return { ours: runs.get(PGW)!, portkey: runs.get(PORTKEY)!, direct };
    };
    for (const connections of CONNECTIONS) {
      const { ours, portkey, direct } = await level(String(connections), connections, targets);
      const ahead = ours.requestsPerS / portkey.requestsPerS;
      verdicts.push(`| c=${connections} | requests/s ahead of Portkey | ${fmt(ahead)}× | ${ahead > 1 ? 'met' : 'not met'} |`);
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
    const loadEnd = readFileSync('/proc/loadavg', 'utf8').trim();
    const report = [
      `- Date: ${new Date().toISOString()}; ${RUN_S} s per run; ${machineLine()}`,
      `- Load average (/proc/loadavg) at start: ${loadStart}; at end: ${loadEnd}`,
      '- One whole-JSON chat completion per request against the zero-logic upstream (the last levels: the same answer after 100 ms, and after 50–150 ms); autocannon 8.0.0 in the bench process; added = contender − direct at the same concurrency. Produced by `pnpm --filter @pgw/bench serve-bench` (apps/bench/README.md).',
      '',
      '| level | target | measured | verdict |',
      '| --- | --- | ---: | --- |',
      ...verdicts,
      '',
      ...table,
      '',
    ].join('\n');
    console.log(report);
    await writeFile(new URL('serve-results.md', RESULTS_DIR), report);
    console.log('wrote bench/serve-results.md (pnpm bench puts it into bench/results.md)');
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await upstream.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
