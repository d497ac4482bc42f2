/**
 * The settlement matrix (docs/architecture.md#settlement) on the governors users run — InMemoryGovernor
 * and RedisGovernor on a real Redis — through the client and the loopback mock: what each way an
 * attempt ends leaves booked in the source's TPM window, with its slot given back.
 */
import { InMemoryGovernor } from '@pgw/backend-memory';
import { createRedisConnection, RedisGovernor } from '@pgw/backend-redis';
import type { Governor, SourceStats } from '@pgw/core';
import type { SourceScript } from '@pgw/mock-upstream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GatewayClient } from '../src/index.js';
import { MockFixture, REDIS_URL, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();
const redis = createRedisConnection(REDIS_URL);
afterAll(() => redis.quit());

const EST = 700;
const LIMITS = { rpm: 0, tpm: 100_000, maxConcurrency: 4 };
const POLICY = { failureThreshold: 5, failureRate: 1, windowMs: 60_000, minSamples: 100, cooldownMs: 60_000, maxCooldownMs: 60_000, probeTtlMs: 30_000 };

const GOVERNORS = [
  { name: 'InMemoryGovernor', build: (scope: string, source: string): Governor => new InMemoryGovernor(options(scope, source)) },
  { name: 'RedisGovernor', build: (scope: string, source: string): Governor => new RedisGovernor({ ...options(scope, source), redis }) },
] as const;

function options(scope: string, source: string) {
  return { scope, sources: { [source]: LIMITS }, global: { rpm: 0, tpm: 0, maxConcurrency: 0 }, leaseTtlMs: 600_000, policy: POLICY };
}

async function settled(script: SourceScript, backend: (typeof GOVERNORS)[number], cancelInFlight = false): Promise<SourceStats> {
  const scope = uniqueScope('settle');
  const source = fixture.source('settle', script);
  const governor = backend.build(scope, source);
  const env = {
    PGW_CACHE_BACKEND: 'none',
    ...fixture.sourceKeys(scope, source, { EST_TOKENS: String(EST) }),
    ...scopeKeys(scope, { MAX_ATTEMPTS: '1' }),
  };
  const client = await GatewayClient.fromEnv(scope, { env, governor, warn: () => {} });
  try {
    const controller = new AbortController();
    const call = client.chat([{ role: 'user', content: 'hi' }], { signal: controller.signal }).catch((error: unknown) => error);
    if (cancelInFlight) {
      await fixture.inflight(source);
      controller.abort();
    }
    await call;
    await vi.waitFor(async () => expect((await governor.sourceStats(source)).inflight).toBe(0), { timeout: 10_000, interval: 20 });
    return await governor.sourceStats(source);
  } finally {
    await client.close();
    await governor.close?.(); // injected parts are the caller's to close (Redis: the fleet line's subscriber)
  }
}

describe.each(GOVERNORS)('settlement through the client on $name', (backend) => {
  it('S4: a success is charged the usage the upstream measured', async () => {
    const stats = await settled({ usage: { prompt_tokens: 30, completion_tokens: 12 } }, backend);
    expect(stats).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 42 });
  });

  it('S4: a measured 0 is charged 0, never the estimate', async () => {
    expect(await settled({ usage: { prompt_tokens: 0, completion_tokens: 0 } }, backend)).toMatchObject({ tpmUsed: 0 });
  });

  it('S3: a call cancelled in flight keeps its estimate', async () => {
    expect(await settled({ otherwise: { kind: 'hang' } }, backend, true)).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: EST });
  });

  it('S5: a transient failure keeps its estimate; a dead source and a rejected request settle 0', async () => {
    expect(await settled({ otherwise: { kind: 'status', status: 503 } }, backend)).toMatchObject({ tpmUsed: EST });
    expect(await settled({ otherwise: { kind: 'status', status: 401 } }, backend)).toMatchObject({ tpmUsed: 0 });
    expect(await settled({ otherwise: { kind: 'status', status: 400 } }, backend)).toMatchObject({ tpmUsed: 0 });
  });
});
