/**
 * Cancellation settlement end to end on a real Redis: a call cancelled while its request is in
 * flight keeps its token estimate booked (it may have been billed) and gives its slot back.
 */
import { createRedisConnection, RedisLimiter } from '@pgw/backend-redis';
import { describe, expect, it, vi } from 'vitest';
import { GatewayClient } from '../src/index.js';
import { MockFixture, REDIS_URL, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

const EST_TOKENS = 700;

describe('a call cancelled in flight, on Redis', () => {
  it('leaves tpmUsed equal to its estimate and in-flight 0', async () => {
    const scope = uniqueScope('cancel');
    const source = fixture.source('cancel', { otherwise: { kind: 'hang' } });
    const env = {
      PGW_LIMITER_BACKEND: 'redis',
      PGW_CACHE_BACKEND: 'none',
      REDIS_URL,
      ...fixture.sourceKeys(scope, source, { TPM: '100000', EST_TOKENS: String(EST_TOKENS), MAX_CONCURRENCY: '4' }),
      ...scopeKeys(scope, {}),
    };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    const redis = createRedisConnection(REDIS_URL);
    const observer = new RedisLimiter({
      scope: client.settings.scope,
      sources: { [source]: { rpm: 0, tpm: 100_000, maxConcurrency: 4 } },
      global: client.settings.global,
      leaseTtlMs: client.settings.leaseTtlMs,
      redis,
    });
    try {
      const controller = new AbortController();
      const call = client.chat([{ role: 'user', content: 'hi' }], { signal: controller.signal }).catch((error: unknown) => error);
      await fixture.inflight(source);
      expect(await observer.sourceStats(source)).toMatchObject({ inflight: 1, tpmUsed: EST_TOKENS });
      controller.abort();
      expect(await call).toMatchObject({ name: 'AbortError' });
      await vi.waitFor(async () => expect((await observer.sourceStats(source)).inflight).toBe(0), { timeout: 10_000, interval: 20 });
      expect(await observer.sourceStats(source)).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: EST_TOKENS });
    } finally {
      await redis.quit();
      await client.close();
    }
  });
});
