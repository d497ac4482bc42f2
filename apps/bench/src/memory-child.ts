/**
 * Child process entry for benchmark 5 (run with --expose-gc): holds many governed calls in flight
 * against the mock's hanging source, reports heap and RSS, then aborts them all and checks the
 * limiter's books return to zero. A child, so the figures are this client's alone.
 */
import { getEventListeners, setMaxListeners } from 'node:events';
import { InMemoryLimiter } from '@pgw/backend-memory';
import { GatewayClient } from '@pgw/client';
import { createAgent } from '@pgw/http';
import { serveParent, type ChildRequest } from './child.js';
import { benchSettings, SOURCE_NAME, uniqueScope } from './gateway-settings.js';
import { MESSAGES } from './mock-script.js';

const [baseUrl, callsArg, connectionsArg] = process.argv.slice(2) as [string, string, string];
const calls = Number(callsArg);
const connections = Number(connectionsArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('memory-child needs node --expose-gc');

// Limits raised so every call is admitted; a timeout far beyond the hold so none expires on its own.
const settings = benchSettings({ scope: uniqueScope('BENCH_MEM'), baseUrl, backend: 'memory', maxConcurrency: calls, timeoutMs: 600_000 });
const source = settings.sources[0]!;
const limiter = new InMemoryLimiter({
  scope: settings.scope,
  sources: { [SOURCE_NAME]: { rpm: source.rpm, tpm: source.tpm, maxConcurrency: source.maxConcurrency } },
  global: settings.global,
  leaseTtlMs: settings.leaseTtlMs,
});
const dispatcher = createAgent({ connections });
// Streaming on (a source's default): each call also arms its stream watchdog.
const client = await GatewayClient.fromSettings(settings, { limiter, dispatcher });
// One caller signal shared by every call, as a batch job's shutdown signal would be: it carries a
// listener per call while they run, so Node's leak warning (at 10) does not apply to it.
const caller = new AbortController();
setMaxListeners(0, caller.signal);
let pending: Promise<PromiseSettledResult<unknown>[]> | undefined;

function memory() {
  gc!();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsedBytes: heapUsed, rssBytes: rss };
}

async function handle(request: ChildRequest): Promise<object> {
  switch (request.type) {
    case 'baseline':
      return memory();
    case 'launch':
      pending = Promise.allSettled(Array.from({ length: calls }, () => client.chat(MESSAGES, { signal: caller.signal })));
      return {};
    case 'status':
      return { inflight: (await limiter.sourceStats(SOURCE_NAME)).inflight };
    case 'measure':
      return { ...memory(), signalListeners: getEventListeners(caller.signal, 'abort').length };
    case 'abort': {
      caller.abort(new Error('benchmark done'));
      const aborted = (await pending!).filter((o) => o.status === 'rejected' && (o.reason as Error).name === 'AbortError').length;
      // Drop the settled calls, so what the heap still holds afterwards is the client's own.
      pending = undefined;
      const { inflight } = await limiter.sourceStats(SOURCE_NAME);
      return { aborted, inflightAfter: inflight, signalListenersAfter: getEventListeners(caller.signal, 'abort').length, ...memory() };
    }
    default:
      throw new Error(`unknown request ${request.type}`);
  }
}

serveParent(handle, async () => {
  await client.close();
  await dispatcher.close();
});
