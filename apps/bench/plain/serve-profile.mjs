// A profile of `pgw serve` proxying whole chat completions: `node apps/bench/plain/serve-profile.mjs
// <connections> <seconds> [profile dir, or - for none]`. The zero-logic upstream, the server (under
// `node --cpu-prof`, as the CLI runs it: tsx on the source) and autocannon are three processes, so
// the profile holds only the server; prints its CPU per request (/proc, Linux only), and the
// profile is written when the server exits. Summarise it with plain/profile-top.mjs.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [connections = '64', seconds = '10', dir = 'bench/raw/profiles'] = process.argv.slice(2);
const PGW_BIN = fileURLToPath(new URL('../../cli/bin/pgw.mjs', import.meta.url));
const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Hello' }] });

const upstream = fork(new URL('./zero-upstream.mjs', import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [{ url }] = await once(upstream, 'message');
const server = spawn(process.execPath, [...(dir === '-' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`]), PGW_BIN, 'serve', '--port', '0'], {
  env: { PATH: process.env.PATH, LLM__SOURCE__MAIN__BASE_URL: `${url}/chat/v1`, LLM__SOURCE__MAIN__MODEL: 'bench-model', LLM__SOURCE__MAIN__STREAM: 'false', PGW_CACHE_BACKEND: 'none', PGW_SERVER__ACCESS_LOG: process.env.PGW_SERVER__ACCESS_LOG ?? 'on' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
const serverUrl = await new Promise((resolve) => {
  let out = '';
  // Read to the end: the access log goes there, and a full pipe would stall the server.
  server.stderr.on('data', (chunk) => {
    if (out.length > 4096) return;
    out += chunk;
    const match = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
    if (match) resolve(match[0]);
  });
});
// utime + stime in 1/100 s (USER_HZ), the fields after the command name.
const cpuMs = () => {
  const stat = readFileSync(`/proc/${server.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const cannon = (c, s) => {
  const child = spawn(process.execPath, [AUTOCANNON, '-j', '-c', String(c), '-d', String(s), '-m', 'POST', '-H', 'content-type=application/json', '-b', body, `${serverUrl}/v1/chat/completions`], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  return once(child, 'exit').then(() => JSON.parse(out));
};
await cannon(8, 2); // warm-up
const before = cpuMs();
const result = await cannon(Number(connections), Number(seconds));
const spent = cpuMs() - before;
console.log(`c=${connections}: ${(result.requests.total / Number(seconds)).toFixed(0)} requests/s, ${((spent * 1000) / result.requests.total).toFixed(0)} µs CPU/request, non-2xx ${result.non2xx}`);
server.kill('SIGTERM');
await once(server, 'exit');
upstream.disconnect();
