// Two builds of the governed client side by side (plain node, built dist, zero-logic upstream): raw
// undici, this checkout's GatewayClient and another checkout's (say, main's, built in a temp copy),
// in interleaved rounds in one process. Per contender: calls/s and CPU µs per call of this process,
// median (min–max), and the ratio to raw. A change to the call path is judged by the two ratios.
// `node apps/bench/plain/compare-builds.mjs <other checkout> [concurrency=64] [calls=4000] [rounds=5]`
// Build both first: pnpm exec turbo run build --filter=@pgw/client... (in each checkout)
// COMPARE_BACKEND=redis governs both on the Redis at REDIS_URL (default 127.0.0.1:6379), each its own scope.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GatewayClient } from '@pgw/client';
import { createAgent } from '@pgw/http';
import { Pool } from 'undici';
import { median } from './measure.mjs';

const [other, ...counts] = process.argv.slice(2);
if (!other) throw new Error('usage: compare-builds.mjs <other checkout> [concurrency] [calls] [rounds]');
const [concurrency = 64, calls = 4000, rounds = 5] = counts.map(Number);
const { GatewayClient: OtherClient } = await import(pathToFileURL(join(other, 'packages/client/dist/index.js')).href);
const messages = [{ role: 'user', content: 'Reply with a short greeting.' }];
const upstream = fork(new URL('./zero-upstream.mjs', import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [{ url }] = await once(upstream, 'message');
const baseUrl = `${url}/chat/v1`;

const pool = new Pool(url, { connections: 64 });
const backend = process.env.COMPARE_BACKEND ?? 'memory';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const settings = (scope) => ({
  scope: `${scope}_${process.pid}`,
  sources: [{ name: 's0', baseUrl, apiKey: 'k', model: 'bench-model', stream: false }],
  backends: { limiter: backend, breaker: backend, cache: 'none', telemetry: 'none', ...(backend === 'redis' && { redisUrl }) },
});
const dispatchers = [createAgent({ connections: 64 }), createAgent({ connections: 64 })];
const here = await GatewayClient.fromSettings(settings('HERE'), { dispatcher: dispatchers[0] });
const there = await OtherClient.fromSettings(settings('THERE'), { dispatcher: dispatchers[1] });
const contenders = {
  raw: async () => (await pool.request({ method: 'POST', path: '/chat/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'bench-model', messages, stream: false }) })).body.json(),
  other: () => there.chat(messages),
  this: () => here.chat(messages),
};

async function round(call) {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < calls) await call();
  }));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: calls / seconds, cpu: (used.user + used.system) / calls };
}

const names = Object.keys(contenders);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let r = 0; r <= rounds; r += 1) {
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const name of order) {
    const sample = await round(contenders[name]);
    if (r > 0) samples[name].push(sample); // round 0 warms up
  }
}
const spread = (xs, digits) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const rawRate = median(samples.raw.map((s) => s.rate));
console.log(`${backend}, c=${concurrency}, ${calls} calls × ${rounds} rounds, load ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log('| contender | calls/s median (min–max) | ratio vs raw | CPU µs/call median (min–max) |');
console.log('| --- | --- | --- | --- |');
for (const name of names) {
  const rates = samples[name].map((s) => s.rate);
  const cpus = samples[name].map((s) => s.cpu);
  console.log(`| ${name} | ${spread(rates, 0)} | ${(median(rates) / rawRate).toFixed(2)} | ${spread(cpus, 1)} |`);
}
await Promise.all([here.close(), there.close(), pool.close(), ...dispatchers.map((d) => d.close())]);
upstream.kill();
