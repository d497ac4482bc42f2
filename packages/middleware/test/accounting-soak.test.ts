/**
 * docs/architecture.md#invariants: after any run — success, failure, abort — `inflight` returns to 0 and TPM equals the
 * settled usage. 10,000 logical calls with random outcomes and aborts against the real memory limiter.
 */
import { InMemoryLimiter } from '@pgw/backend-memory';
import {
  abortError,
  governorOf,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type AttemptContext,
  type ChatResult,
  type Limiter,
  type Sleep,
} from '@pgw/core';
import { expect, it } from 'vitest';
import { assembleChatPipeline } from './helpers/internals.js';
import { ArrayRecorder, chatResult, drain, ManualClock, Script, ScriptedBreaker, ScriptedModel, source, usage } from './helpers/fakes.js';
import { testSettings } from './helpers/harness.js';

/** Deterministic PRNG (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Yields to the event loop so other calls run and release; rejects on abort. */
const yieldingSleep: Sleep = async (_ms, signal) => {
  if (signal?.aborted) throw abortError(signal);
  await tick();
  if (signal?.aborted) throw abortError(signal);
};

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(abortError(signal));
    signal.addEventListener('abort', () => reject(abortError(signal)), { once: true });
  });
}

it('10,000 calls with random failures and aborts leave inflight 0 and TPM equal to the settled sum', async () => {
  const random = prng(20240917);
  const clock = new ManualClock(); // frozen: every reservation stays inside its 60 s window
  const sources = [source('a', { maxConcurrency: 20, estTokens: 30 }), source('b', { maxConcurrency: 20, estTokens: 30 })];
  const memory = new InMemoryLimiter({
    scope: 'SOAK',
    sources: { a: { rpm: 0, tpm: 0, maxConcurrency: 20 }, b: { rpm: 0, tpm: 0, maxConcurrency: 20 } },
    global: { rpm: 0, tpm: 0, maxConcurrency: 30 },
    leaseTtlMs: 3_600_000,
    now: clock.now,
  });
  let settledSum = 0;
  let permits = 0;
  const settleCounts: number[] = [];
  const limiter: Limiter = {
    tryEnter: async (name, est) => {
      const admission = await memory.tryEnter(name, est);
      if (!admission.ok) return admission;
      const index = permits++;
      settleCounts[index] = 0;
      const { permit } = admission;
      return {
        ok: true,
        permit: {
          source: permit.source,
          estTokens: permit.estTokens,
          settle: async (actual) => {
            settleCounts[index]! += 1;
            if (settleCounts[index] === 1) settledSum += actual;
            await permit.settle(actual);
          },
          release: () => permit.release(),
        },
      };
    },
    sourceStats: (name) => memory.sourceStats(name),
  };

  const controllers = new Map<string, AbortController>();
  const abortSoon = (id: string): void => {
    setImmediate(() => controllers.get(id)?.abort());
  };
  const model = {
    ...new ScriptedModel(new Script([])),
    generate: async (_request: unknown, ctx: AttemptContext): Promise<ChatResult> => {
      await tick(); // in flight for a moment, so aborts land everywhere
      const r = random();
      const tokens = Math.floor(random() * 50);
      if (r < 0.35) return chatResult('ok', { usage: usage(tokens, random() < 0.1 ? 0 : 1) });
      if (r < 0.45) throw new TransientError({ message: '503', statusCode: 503 });
      if (r < 0.55) throw new TransientError({ message: '429', statusCode: 429, transientKind: 'rate_limited' });
      if (r < 0.6) throw new SourceDeadError({ message: '401', statusCode: 401 });
      if (r < 0.65) throw new RequestRejectedError({ message: '400', statusCode: 400 });
      if (r < 0.7) throw new ResultInvalidError({ message: 'bad shape' });
      if (r < 0.73) throw new RangeError('transport bug');
      if (r < 0.83) ctx.onUsage?.(usage(tokens, 0)); // usage known, then the stream stalls
      abortSoon(ctx.logicalCallId);
      return untilAborted(ctx.signal);
    },
  };
  const pipeline = assembleChatPipeline({
    settings: testSettings({
      scope: 'SOAK',
      sources: sources.map((s) => ({ ...s, model: model as ScriptedModel })),
      selector: 'round_robin',
      retry: { maxAttempts: 3, backoffBaseMs: 1, backoffMaxMs: 10 },
    }),
    governor: governorOf(limiter, new ScriptedBreaker()),
    recorder: new ArrayRecorder(),
    now: clock.now,
    sleep: yieldingSleep,
    rng: random,
    warn: () => undefined,
  });

  const outcomes = new Map<string, number>();
  const WAVE = 50;
  for (let wave = 0; wave < 10_000 / WAVE; wave += 1) {
    const calls = Array.from({ length: WAVE }, (_, i) => {
      const id = `call-${wave}-${i}`;
      const controller = new AbortController();
      controllers.set(id, controller);
      if (random() < 0.1) {
        const ticks = Math.floor(random() * 6);
        void (async () => {
          for (let t = 0; t < ticks; t += 1) await tick();
          controller.abort();
        })();
      }
      return pipeline.run({ messages: [{ role: 'user', content: id }], sampling: {} }, { logicalCallId: id, signal: controller.signal });
    });
    for (const settled of await Promise.allSettled(calls)) {
      const name = settled.status === 'fulfilled' ? 'ok' : (settled.reason as Error).name;
      outcomes.set(name, (outcomes.get(name) ?? 0) + 1);
    }
    controllers.clear();
  }
  await drain(); // grants that arrived after their call was cancelled are handed back

  // Every outcome class was exercised.
  expect([...outcomes.keys()].sort()).toEqual(
    ['AbortError', 'AllSourcesExhausted', 'RangeError', 'RequestRejectedError', 'ResultInvalidError', 'ok'].sort(),
  );
  expect(settleCounts.every((count) => count === 1)).toBe(true);
  const [a, b] = await Promise.all([memory.sourceStats('a'), memory.sourceStats('b')]);
  expect(a.inflight + b.inflight).toBe(0);
  expect(a.tpmUsed + b.tpmUsed).toBe(settledSum);
  expect(permits).toBeGreaterThan(10_000);
});
