// Where the governed call's CPU goes, layer by layer (plain node, built dist, zero-logic upstream):
// raw undici → the provider model alone (`model.generate`, @pgw/http + transport) → the governed
// client. Interleaved rounds, CPU µs per call of this process, median (min–max).
// `node apps/bench/plain/layers.mjs [concurrency=64] [calls=4000] [rounds=5]`
// Build first: pnpm exec turbo run build --filter=@pgw/client...
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { GatewayClient } from '@pgw/client';
import { NEVER_ABORTED } from '@pgw/core/internal';
import { createAgent } from '@pgw/http';
import { openaiCompatible } from '@pgw/transport-openai';
import { Pool } from 'undici';
import { median } from './measure.mjs';

const [concurrency = 64, calls = 4000, rounds = 5] = process.argv.slice(2, 5).map(Number);
// A fourth argument keeps only the named contenders (comma-separated), e.g. to profile one of them.
const only = process.argv[5]?.split(',');
const messages = [{ role: 'user', content: 'Reply with a short greeting.' }];
const upstream = fork(new URL('./zero-upstream.mjs', import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [{ url }] = await once(upstream, 'message');
const baseUrl = `${url}/chat/v1`;

const pool = new Pool(url, { connections: 64 });

const dispatcher = createAgent({ connections: 64 });
const model = openaiCompatible({ baseUrl, apiKey: 'k', model: 'bench-model', stream: false, dispatcher });
const client = await GatewayClient.fromSettings(
  { scope: 'LAYERS', sources: [{ name: 's0', baseUrl, apiKey: 'k', model: 'bench-model', stream: false }], backends: { limiter: 'memory', breaker: 'memory', cache: 'none', telemetry: 'none' } },
  { dispatcher },
);
const attempt = { signal: NEVER_ABORTED, sourceName: 's0', timeoutMs: 60_000, callId: 'c', logicalCallId: 'l' };
const contenders = {
  raw: async () => (await pool.request({ method: 'POST', path: '/chat/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'bench-model', messages, stream: false }) })).body.json(),
  model: () => model.generate({ messages }, attempt),
  governed: () => client.chat(messages),
  // As `pgw serve` calls: each call under a signal of its own request.
  signalled: () => client.chat(messages, { signal: new AbortController().signal }),
};

async function round(call) {
  let next = 0;
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < calls) await call();
  }));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
}

const names = Object.keys(contenders).filter((name) => !only || only.includes(name));
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let r = 0; r <= rounds; r += 1) {
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const name of order) {
    const us = await round(contenders[name]);
    if (r > 0) samples[name].push(us);
  }
}
const raw = samples.raw ? median(samples.raw) : NaN;
for (const name of names) {
  const xs = samples[name];
  console.log(`${name.padEnd(9)} ${median(xs).toFixed(1).padStart(6)} µs/call (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})  ×${(median(xs) / raw).toFixed(2)} raw`);
}
await client.close();
await dispatcher.close();
await pool.close();
upstream.disconnect();
