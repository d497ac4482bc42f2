// Throwaway probe (not committed): raw undici Pool.request at c=64 against the zero-logic upstream,
// no signal vs an AbortController's signal vs a minimal once/removeListener cancel handle.
import { Pool } from 'undici';
import { ZeroUpstream } from './src/zero-upstream.ts';
import { interleave, runConcurrent } from './src/harness.ts';

class CancelHandle {
  aborted = false;
  reason: unknown = undefined;
  #listener: (() => void) | undefined;
  on(_event: 'abort', listener: () => void): this { this.#listener = listener; return this; }
  once(_event: 'abort', listener: () => void): this { this.#listener = listener; return this; }
  removeListener(_event: 'abort', listener: () => void): this { if (this.#listener === listener) this.#listener = undefined; return this; }
  abort(reason: unknown): void { if (this.aborted) return; this.aborted = true; this.reason = reason; const l = this.#listener; this.#listener = undefined; l?.(); }
}

const up = await ZeroUpstream.start();
const url = new URL(`${up.baseUrl('chat')}/chat/completions`);
const pool = new Pool(url.origin, { connections: 64 });
const headers = { 'content-type': 'application/json' };
const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const one = async (signal?: unknown) => {
  const r = await pool.request({ method: 'POST', path: url.pathname, headers, body, signal: signal as AbortSignal });
  await r.body.json();
};
const c = Number(process.argv[2] ?? 64);
const n = Number(process.argv[3] ?? 6000);
const results = await interleave(
  [
    { name: 'no signal', round: () => runConcurrent(n, c, () => one()) },
    { name: 'AbortController', round: () => runConcurrent(n, c, () => one(new AbortController().signal)) },
    { name: 'cancel handle', round: () => runConcurrent(n, c, () => one(new CancelHandle())) },
  ],
  { rounds: Number(process.argv[4] ?? 7) },
);
for (const r of results) console.log(r.name.padEnd(16), 'calls/s', r.median.toFixed(0), 'cpu µs/call', r.medianCpuUs.toFixed(1), 'cpu spread', Math.min(...r.cpuUs).toFixed(1), Math.max(...r.cpuUs).toFixed(1));
await pool.close();
await up.close();
