/**
 * Fair admission in one process: callers waiting for room are served in arrival order, woken when
 * room frees (no polling gaps), and waiting in numbers leaves no listener pile-up on any signal.
 * Real time is the subject: the mock upstream answers after a fixed latency.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CallDeadlineExceeded, GatewayClient, GatewayUnavailableError } from '../src/index.js';
import { MockFixture, outcome, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

async function withClient<T>(
  upstreamMs: number,
  keys: Record<string, string>,
  run: (client: GatewayClient, source: string) => Promise<T>,
  maxConcurrency = 2,
): Promise<T> {
  const scope = uniqueScope('fair');
  const source = fixture.source('fair', { latencyMs: upstreamMs });
  const env = {
    PGW_LIMITER_BACKEND: 'memory',
    PGW_CACHE_BACKEND: 'none',
    ...scopeKeys(scope, { SOURCES: source, ...keys }),
    ...fixture.sourceKeys(scope, source, { MAX_CONCURRENCY: String(maxConcurrency) }),
  };
  const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
  try {
    return await run(client, source);
  } finally {
    await client.close();
  }
}

/** Pairs (i < j) where j reached the upstream before i. */
function invertedPairs(order: readonly number[]): number {
  let inverted = 0;
  for (let i = 0; i < order.length; i += 1) for (let j = i + 1; j < order.length; j += 1) if (order[i]! > order[j]!) inverted += 1;
  return inverted;
}

const caller = (index: number) => [{ role: 'user' as const, content: `caller ${index}` }];
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fair admission on the memory backend', () => {
  it('sends 40 callers arriving 1 ms apart to the upstream in arrival order, without polling gaps', async () => {
    await withClient(50, {}, async (client, source) => {
      const started = performance.now();
      const calls: Promise<unknown>[] = [];
      for (let index = 0; index < 40; index += 1) {
        calls.push(client.chat(caller(index)));
        await tick(1);
      }
      await Promise.all(calls);
      const elapsedMs = performance.now() - started;
      const order = fixture.mock.requests(source).map((request) => {
        const body = request.body as { messages: Array<{ content: string }> };
        return Number(body.messages[0]!.content.split(' ')[1]);
      });
      expect(order).toHaveLength(40);
      // Admission is in arrival order (0 inverted pairs on a quiet machine; before: ~340 of 780). Two
      // requests admitted in the same instant race over two sockets, so a loaded machine may swap a pair.
      expect(invertedPairs(order)).toBeLessThanOrEqual(2);
      expect(Math.max(...order.map((caller, place) => Math.abs(caller - place)))).toBeLessThanOrEqual(1);
      // Ideal: 20 rounds of 50 ms. Polling used to add whole nap periods; the margin is for a loaded machine.
      expect(elapsedMs).toBeLessThan(4 * 1000);
    });
  });

  it('keeps QUOTA_FULL=fail_fast failing at once while others hold the room', async () => {
    await withClient(200, { QUOTA_FULL: 'fail_fast' }, async (client, source) => {
      const holders = [client.chat(caller(0)), client.chat(caller(1))];
      await fixture.inflight(source, 2);
      await expect(client.chat(caller(2))).rejects.toBeInstanceOf(GatewayUnavailableError);
      await Promise.all(holders);
    });
  });

  it('a waiter whose call deadline expires leaves the line, and the caller behind it is served next', async () => {
    await withClient(300, {}, async (client, source) => {
      const holders = [client.chat(caller(0)), client.chat(caller(1))];
      await fixture.inflight(source, 2);
      const expiring = outcome(() => client.chat(caller(2), { callDeadlineMs: 100 }));
      const behind = client.chat(caller(3));
      expect((await expiring).error).toBeInstanceOf(CallDeadlineExceeded);
      await Promise.all([...holders, behind]);
      const order = fixture.mock.requests(source).map((request) => (request.body as { messages: Array<{ content: string }> }).messages[0]!.content);
      expect(order).toEqual(['caller 0', 'caller 1', 'caller 3']);
    });
  });

  it('lets 1,000 concurrent waiting calls wait without a process warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      await withClient(5, {}, async (client) => {
        const shared = new AbortController();
        // Half the calls share one caller signal, half have none (the library's never-aborting signal).
        const calls = Array.from({ length: 1000 }, (_, index) =>
          client.chat(caller(index), index % 2 === 0 ? { signal: shared.signal } : {}),
        );
        await Promise.all(calls);
      }, 10);
      // Warnings are emitted on the next tick.
      await tick(10);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  });
});
