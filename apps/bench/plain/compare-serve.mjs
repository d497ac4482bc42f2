// `pgw serve` of two checkouts side by side, beside the bare proxy (plain/bare-proxy.mjs): the same
// zero-logic upstream, each server a process of its own, loaded by autocannon from this process in
// interleaved rounds (a warm-up round, then each round in a rotated order). Per contender, the
// medians over the rounds: requests/s, p50/p99/p99.9 ms, the server process's CPU µs per request
// (/proc, Linux only) and that CPU as a multiple of the bare proxy's; then the two builds' ratio
// taken round by round. A change to the server's path is judged by those, measured in one run.
// `node apps/bench/plain/compare-serve.mjs <other checkout> [connections=64] [seconds=3] [rounds=5]`
// COMPARE_ROUTE picks the upstream's route (default chat, the zero-latency answer; slow: 100 ms,
// second: 1 s; plain/zero-upstream.mjs).
// Both checkouts installed (the CLI runs its source under tsx, nothing to build).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMs, median, percentiles } from './measure.mjs';
import { startPgwServe } from './pgw-serve-child.mjs';

const [other, ...counts] = process.argv.slice(2);
if (!other) throw new Error('usage: compare-serve.mjs <other checkout> [connections] [seconds] [rounds]');
const [connections = 64, seconds = 3, rounds = 5] = counts.map(Number);
const ROUTE = process.env.COMPARE_ROUTE ?? 'chat';
const HERE_BIN = fileURLToPath(new URL('../../cli/bin/pgw.mjs', import.meta.url));
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Hello' }] });

const children = [];
const forkPlain = async (script, args = []) => {
  const child = fork(new URL(script, import.meta.url), args, { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const [{ url }] = await once(child, 'message');
  return { url, pid: child.pid };
};
const serve = async (bin, upstream) => {
  const { child, url } = await startPgwServe(bin, { LLM__SOURCE__MAIN__BASE_URL: `${upstream}/${ROUTE}/v1`, LLM__SOURCE__MAIN__MODEL: 'bench-model', LLM__SOURCE__MAIN__STREAM: 'false', PGW_CACHE_BACKEND: 'none' });
  children.push(child);
  return { url: `${url}/v1/chat/completions`, pid: child.pid };
};

async function round({ url, pid }, c, s) {
  const latencies = [];
  const before = cpuMs(pid);
  const instance = autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, body, connections: c, duration: s });
  instance.on('response', (_client, status, _bytes, ms) => status === 200 && latencies.push(ms));
  const result = await instance;
  const requests = result.requests.total;
  const [p50, p99, p999] = percentiles(latencies, [50, 99, 99.9]);
  return { rps: requests / s, p50, p99, p999, cpu: ((cpuMs(pid) - before) * 1000) / requests, failures: result.non2xx + result.errors + result.timeouts };
}

try {
  const upstream = await forkPlain('./zero-upstream.mjs');
  const contenders = { bare: await forkPlain('./bare-proxy.mjs', [upstream.url, ROUTE]), other: await serve(join(other, 'apps/cli/bin/pgw.mjs'), upstream.url), this: await serve(HERE_BIN, upstream.url) };
  const names = Object.keys(contenders);
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r <= rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      const run = await round(contenders[name], connections, seconds);
      if (r > 0) runs[name].push(run);
    }
  }
  const bareCpu = median(runs.bare.map((run) => run.cpu));
  console.log(`c=${connections}, upstream route ${ROUTE}, ${rounds} rounds of ${seconds} s (medians); load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  console.log('contender | requests/s | p50 ms | p99 ms | p99.9 ms | CPU µs/request | × bare | failures');
  for (const name of names) {
    const m = (field) => median(runs[name].map((run) => run[field]));
    const failures = runs[name].reduce((sum, run) => sum + run.failures, 0);
    console.log(`${name} | ${m('rps').toFixed(0)} | ${m('p50').toFixed(2)} | ${m('p99').toFixed(2)} | ${m('p999').toFixed(2)} | ${m('cpu').toFixed(0)} | ${(m('cpu') / bareCpu).toFixed(2)} | ${failures}`);
  }
  // Each round measures both builds back to back: their ratio in one round is spared the machine's drift between rounds.
  const paired = (field) => {
    const ratios = runs.this.map((run, r) => run[field] / runs.other[r][field]);
    return `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`;
  };
  console.log(`this ÷ other, per round, median (min–max): CPU µs/request ${paired('cpu')}, requests/s ${paired('rps')}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
}
