/**
 * docs/architecture.md#invariants on the governors users run, through the client: after a few hundred
 * concurrent calls that succeed, fail transiently, are rejected, hang past their deadline or are
 * cancelled before they start, every lease is back and the TPM window holds exactly what the
 * settlement matrix says each call costs — on InMemoryGovernor and on RedisGovernor (a real Redis).
 */
import { InMemoryGovernor } from '@pgw/backend-memory';
import { createRedisConnection, RedisGovernor } from '@pgw/backend-redis';
import type { Governor } from '@pgw/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AllSourcesExhausted, CallDeadlineExceeded, GatewayClient, RequestRejectedError } from '../src/index.js';
import { MockFixture, REDIS_URL, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();
const redis = createRedisConnection(REDIS_URL);
afterAll(() => redis.quit());

const EST = 500;
const CALLS = 300;
const CONCURRENCY = 16;
const LIMITS = { rpm: 0, tpm: 10_000_000, maxConcurrency: CONCURRENCY };
// Never trips: the soak is about the books, not the breaker.
const POLICY = { failureThreshold: 1_000_000, failureRate: 1, windowMs: 60_000, minSamples: 1_000_000, cooldownMs: 1, maxCooldownMs: 1, probeTtlMs: 30_000 };

const GOVERNORS = [
  { name: 'InMemoryGovernor', build: (options: ReturnType<typeof optionsOf>): Governor => new InMemoryGovernor(options) },
  { name: 'RedisGovernor', build: (options: ReturnType<typeof optionsOf>): Governor => new RedisGovernor({ ...options, redis }) },
] as const;

function optionsOf(scope: string, source: string) {
  return { scope, sources: { [source]: LIMITS }, global: { rpm: 0, tpm: 0, maxConcurrency: 0 }, leaseTtlMs: 600_000, policy: POLICY };
}

/** What a call's outcome leaves booked (docs/architecture.md#settlement), or undefined when it was never admitted. */
function costOf(outcome: unknown): number | undefined {
  if (outcome instanceof RequestRejectedError) return 0; // S5: a rejected request
  if (outcome instanceof AllSourcesExhausted) return EST; // S5: a transient failure, the only attempt
  if (outcome instanceof CallDeadlineExceeded) return EST; // S3: cut off in flight, usage unknown
  if (outcome instanceof Error && outcome.name === 'AbortError') return undefined; // cancelled before it started
  const { usage } = outcome as { usage: { promptTokens: number; completionTokens: number } };
  return usage.promptTokens + usage.completionTokens; // S4
}

describe.each(GOVERNORS)('accounting soak through the client on $name', (backend) => {
  it(`${CALLS} mixed calls: every lease back, TPM = what each outcome settles, RPM = admissions`, async () => {
    const scope = uniqueScope('soak');
    const source = fixture.source('soak', {
      failureRate: 0.5,
      failureSteps: [{ kind: 'status', status: 503 }, { kind: 'status', status: 400 }, { kind: 'hang' }],
    });
    const governor = backend.build(optionsOf(scope, source));
    const env = { PGW_CACHE_BACKEND: 'none', ...fixture.sourceKeys(scope, source, { EST_TOKENS: String(EST) }), ...scopeKeys(scope, { MAX_ATTEMPTS: '1' }) };
    const client = await GatewayClient.fromEnv(scope, { env, governor, warn: () => {} });
    const outcomes: unknown[] = [];
    try {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = next++; i < CALLS; i = next++) {
            // Every tenth call is cancelled before it starts; the rest run under a deadline a hang outlives.
            const signal = i % 10 === 9 ? AbortSignal.abort() : undefined;
            const options = { callDeadlineMs: 1_000, ...(signal && { signal }) };
            outcomes.push(await client.chat([{ role: 'user', content: `call ${i}` }], options).catch((error: unknown) => error));
          }
        }),
      );
      await vi.waitFor(async () => expect((await governor.sourceStats(source)).inflight).toBe(0), { timeout: 10_000, interval: 20 });
      const costs = outcomes.map(costOf);
      const admitted = costs.filter((cost) => cost !== undefined);
      const kinds = new Set(outcomes.map((outcome) => (!(outcome instanceof Error) ? 'ok' : outcome.name === 'AbortError' ? 'AbortError' : outcome.constructor.name)));
      expect([...kinds].sort()).toEqual(['AbortError', 'AllSourcesExhausted', 'CallDeadlineExceeded', 'RequestRejectedError', 'ok'].sort());
      expect(await governor.sourceStats(source)).toEqual({
        inflight: 0,
        rpmUsed: admitted.length,
        tpmUsed: admitted.reduce((sum, cost) => sum + cost, 0),
      });
      expect(fixture.mock.counters(source).chat).toBe(admitted.length);
    } finally {
      await client.close();
      await governor.close?.();
    }
  });
});
