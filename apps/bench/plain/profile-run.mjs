// A short run to profile (plain node, built dist): `node --cpu-prof --cpu-prof-dir=bench/raw/profiles
// apps/bench/plain/profile-run.mjs <what> <concurrency> <calls> [sources]`, `what` one of
// governed | governed-redis (the Redis at REDIS_URL, default 127.0.0.1:6379) | raw | governed-stream. Starts the zero-logic upstream, runs the calls, exits.
// Summarise the profile with plain/profile-top.mjs. Build first: pnpm exec turbo run build --filter=@pgw/client...
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { GatewayClient } from '@pgw/client';
import { createAgent } from '@pgw/http';
import { Pool } from 'undici';

const [what = 'governed', concurrencyArg = '64', callsArg = '20000', sourcesArg = '1'] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const calls = Number(callsArg);
const messages = [{ role: 'user', content: 'Reply with a short greeting.' }];

const upstream = fork(new URL('./zero-upstream.mjs', import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [{ url }] = await once(upstream, 'message');
const route = what === 'governed-stream' ? 'packet' : 'chat';
const baseUrl = `${url}/${route}/v1`;

function backendsOf(mode) {
  if (mode !== 'governed-redis') return { limiter: 'memory', breaker: 'memory', cache: 'none', telemetry: 'none' };
  return { limiter: 'redis', breaker: 'redis', cache: 'none', telemetry: 'none', redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
}

let call;
let close;
if (what === 'raw') {
  const pool = new Pool(url, { connections: 64 });
  const body = JSON.stringify({ model: 'bench-model', messages, stream: false });
  call = async () => (await pool.request({ method: 'POST', path: '/chat/v1/chat/completions', headers: { 'content-type': 'application/json' }, body })).body.json();
  close = () => pool.close();
} else {
  const stream = what === 'governed-stream';
  const dispatcher = createAgent({ connections: stream ? concurrency : 64 });
  const sources = Array.from({ length: Number(sourcesArg) }, (_, i) => ({ name: `s${i}`, baseUrl, apiKey: 'k', model: 'bench-model', stream }));
  const client = await GatewayClient.fromSettings(
    { scope: `PROFILE_${process.pid}`, sources, backends: backendsOf(what) },
    { dispatcher },
  );
  call = stream ? async () => { for await (const delta of client.chatStream(messages)) void delta; } : () => client.chat(messages);
  close = async () => {
    await client.close();
    await dispatcher.close();
  };
}

let next = 0;
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (next++ < calls) await call();
}));
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage();
console.log(`${what} c=${concurrency}: ${(calls / seconds).toFixed(0)} calls/s, ${((cpu.user + cpu.system) / calls).toFixed(1)} µs CPU per call (whole process)`);
await close();
upstream.disconnect();
