// A profile of `pgw serve` proxying whole chat completions: `node apps/bench/plain/serve-profile.mjs
// <connections> <seconds> [profile dir, or - for none]`. The zero-logic upstream, the server (under
// `node --cpu-prof`, as the CLI runs it: tsx on the source) and autocannon are three processes, so
// the profile holds only the server; prints its CPU per request (/proc, Linux only), and the
// profile is written when the server exits. Summarise it with plain/profile-top.mjs.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './measure.mjs';
import { startPgwServe } from './pgw-serve-child.mjs';

const [connections = '64', seconds = '10', dir = 'bench/raw/profiles'] = process.argv.slice(2);
const PGW_BIN = fileURLToPath(new URL('../../cli/bin/pgw.mjs', import.meta.url));
const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Hello' }] });

const upstream = fork(new URL('./zero-upstream.mjs', import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [{ url }] = await once(upstream, 'message');
const { child: server, url: serverUrl } = await startPgwServe(
  PGW_BIN,
  { LLM__SOURCE__MAIN__BASE_URL: `${url}/chat/v1`, LLM__SOURCE__MAIN__MODEL: 'bench-model', LLM__SOURCE__MAIN__STREAM: 'false', PGW_CACHE_BACKEND: 'none', PGW_SERVER__ACCESS_LOG: process.env.PGW_SERVER__ACCESS_LOG ?? 'on' },
  dir === '-' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`],
);
const cannon = (c, s) => {
  const child = spawn(process.execPath, [AUTOCANNON, '-j', '-c', String(c), '-d', String(s), '-m', 'POST', '-H', 'content-type=application/json', '-b', body, `${serverUrl}/v1/chat/completions`], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  return once(child, 'exit').then(() => JSON.parse(out));
};
await cannon(8, 2); // warm-up
const before = cpuMs(server.pid);
const result = await cannon(Number(connections), Number(seconds));
const spent = cpuMs(server.pid) - before;
console.log(`c=${connections}: ${(result.requests.total / Number(seconds)).toFixed(0)} requests/s, ${((spent * 1000) / result.requests.total).toFixed(0)} µs CPU/request, non-2xx ${result.non2xx}`);
server.kill('SIGTERM');
await once(server, 'exit');
upstream.disconnect();
