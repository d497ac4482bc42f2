/**
 * PGW_REDIS_MODE=cluster: governance and the cache on a Redis Cluster through fromEnv, with REDIS_URL
 * a list of seed nodes (`scripts/services.sh` starts a 3-master cluster on 7001-7003).
 */
import { afterAll, expect, it } from 'vitest';
import { GatewayClient, SettingsError } from '../src/index.js';
import { MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const SEEDS = process.env['PGW_TEST_REDIS_CLUSTER'] ?? 'redis://127.0.0.1:7001';

const fixture = MockFixture.use();

it('governs and caches on a cluster given by its seed nodes', async () => {
  const scope = uniqueScope('cluster');
  const source = fixture.source('cluster');
  const env = {
    PGW_LIMITER_BACKEND: 'redis',
    PGW_CACHE_BACKEND: 'redis',
    PGW_REDIS_MODE: 'cluster',
    REDIS_URL: SEEDS,
    ...scopeKeys(scope, { SOURCES: source, CACHE__NAMESPACE: `${scope}-cache` }),
    ...fixture.sourceKeys(scope, source, { MAX_CONCURRENCY: '2' }),
  };
  const warnings: string[] = [];
  const client = await GatewayClient.fromEnv(scope, { env, warn: (message) => warnings.push(message) });
  try {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const first = await client.chat(messages);
    const second = await client.chat(messages);
    expect(first.content).toBe(`hello from ${source}`);
    expect(second.cached).toBe(true);
    expect(fixture.mock.counters(source).chat).toBe(1);
    expect(warnings).toEqual([]);
  } finally {
    await client.close();
  }
});

it('a list of seed nodes in standalone mode is a SettingsError naming REDIS_URL', async () => {
  const env = { PGW_LIMITER_BACKEND: 'redis', REDIS_URL: 'redis://a:1,redis://b:2', LLM__SOURCE__X__BASE_URL: 'http://x.invalid/v1', LLM__SOURCE__X__MODEL: 'm' };
  const error = await GatewayClient.fromEnv('LLM', { env }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SettingsError);
  expect((error as SettingsError).key).toBe('REDIS_URL');
});
