// Memory probe (benchmark 5), plain node on the packages' built dist, run with --expose-gc: holds
// many streaming calls in flight on the mock's hanging source with one shared caller signal,
// reports heap and RSS after a forced GC, then aborts them all and checks nothing is left over.
// `governed`: GatewayClient (memory backends, liveness limits armed); `raw`: undici Pool.request of the
// same shape (streaming body, the caller's signal), the baseline. Spoken to over IPC by
// src/bench-memory.ts ({ id, type } → { id, …fields } or { id, error }).
import { getEventListeners, setMaxListeners } from 'node:events';
import { InMemoryGovernor } from '@pgw/backend-memory';
import { GatewayClient } from '@pgw/client';
import { createAgent } from '@pgw/http';
import { Pool } from 'undici';

const [mode, baseUrl, callsArg, connectionsArg, settingsJson] = process.argv.slice(2);
const calls = Number(callsArg);
const connections = Number(connectionsArg);
const messages = [{ role: 'user', content: 'Reply with a short greeting.' }];
if (!globalThis.gc) throw new Error('memory-probe needs node --expose-gc');

// One caller signal shared by every call, as a batch job's shutdown signal would be.
const caller = new AbortController();
setMaxListeners(0, caller.signal);
let pending;

function governed() {
  const settings = JSON.parse(settingsJson);
  const source = settings.sources[0];
  const governor = new InMemoryGovernor({
    scope: settings.scope,
    sources: { [source.name]: { rpm: source.rpm, tpm: source.tpm, maxConcurrency: source.maxConcurrency } },
    global: settings.global,
    leaseTtlMs: settings.leaseTtlMs,
    policy: settings.breaker,
  });
  const dispatcher = createAgent({ connections });
  const client = GatewayClient.fromSettings(settings, { governor, dispatcher });
  return {
    launch: async () => {
      const ready = await client;
      return Array.from({ length: calls }, () => ready.chat(messages, { signal: caller.signal }));
    },
    inflight: async () => governor.sourceStats(source.name).inflight,
    close: async () => {
      await (await client).close();
      await dispatcher.close();
    },
  };
}

function raw() {
  const url = new URL(`${baseUrl}/chat/completions`);
  const pool = new Pool(url.origin, { connections });
  const headers = { 'content-type': 'application/json', authorization: 'Bearer bench-key' };
  const payload = JSON.stringify({ model: 'bench-model', messages, stream: true });
  let inflight = 0;
  const one = async () => {
    inflight++;
    try {
      const { body } = await pool.request({ method: 'POST', path: url.pathname, headers, body: payload, signal: caller.signal });
      body.setEncoding('utf8');
      for await (const chunk of body) void chunk;
    } finally {
      inflight--;
    }
  };
  return { launch: async () => Array.from({ length: calls }, one), inflight: async () => inflight, close: () => pool.close() };
}

const probe = mode === 'raw' ? raw() : governed();

function memory() {
  globalThis.gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsedBytes: heapUsed, rssBytes: rss };
}

async function handle(request) {
  switch (request.type) {
    case 'baseline':
      return memory();
    case 'launch':
      pending = Promise.allSettled(await probe.launch());
      return {};
    case 'status':
      return { inflight: await probe.inflight() };
    case 'measure':
      return { ...memory(), signalListeners: getEventListeners(caller.signal, 'abort').length };
    case 'abort': {
      caller.abort(new Error('benchmark done'));
      const aborted = (await pending).filter((o) => o.status === 'rejected' && (o.reason?.name === 'AbortError' || o.reason === caller.signal.reason)).length;
      pending = undefined;
      return { aborted, inflightAfter: await probe.inflight(), signalListenersAfter: getEventListeners(caller.signal, 'abort').length, ...memory() };
    }
    default:
      throw new Error(`unknown request ${request.type}`);
  }
}

process.on('message', (request) => {
  if (request.type === 'stop') {
    probe.close().finally(() => process.disconnect());
    return;
  }
  handle(request).then(
    (fields) => process.send({ ...fields, id: request.id }),
    (error) => process.send({ id: request.id, error: error?.stack ?? String(error) }),
  );
});
