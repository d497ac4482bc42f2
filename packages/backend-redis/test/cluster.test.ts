/**
 * Redis Cluster: the same contract suites on a 3-master cluster (`scripts/services.sh` starts one on
 * ports 7001-7003; `PGW_TEST_REDIS_CLUSTER` names its seeds), and a scope whose slot lives on
 * another node than the seed the client was given.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, expect, it } from 'vitest';
import {
  TEST_BREAKER_POLICY,
  UNLIMITED,
  budgetContract,
  tenantGatesContract,
  keyGatesContract,
  cacheContract,
  breakerContract,
  governorContract,
  limiterContract,
  recordStoreContract,
  settleAndReleaseContract,
} from '@pgw/testkit';
import { createRedisCluster, RedisCache, RedisBreaker, RedisGovernor, RedisLimiter, RedisRecordStore, type RedisClient } from '../src/index.js';
import { connectionPool, uniqueScope } from './redis.js';

const SEEDS = (process.env['PGW_TEST_REDIS_CLUSTER'] ?? 'redis://127.0.0.1:7001').split(',');
const opened: RedisClient[] = [];
const cluster = (seeds = SEEDS) => {
  const client = createRedisCluster(seeds);
  opened.push(client);
  return client;
};
const pool = connectionPool();
afterAll(async () => {
  await Promise.all(opened.map((client) => client.quit().catch(() => client.disconnect())));
  await pool.closeAll();
});

const redis = cluster();
limiterContract('RedisLimiter on a cluster', (options) => new RedisLimiter({ redis, ...options }));
settleAndReleaseContract('RedisLimiter on a cluster', (options) => new RedisLimiter({ redis, ...options }));
breakerContract('RedisBreaker on a cluster', (options) => new RedisBreaker({ redis, ...options }));
governorContract('RedisGovernor on a cluster', (options) => new RedisGovernor({ redis, ...options }));
budgetContract('RedisGovernor on a cluster', (options) => new RedisGovernor({ redis, ...options }));
tenantGatesContract('RedisGovernor on a cluster', (options) => new RedisGovernor({ redis, policy: TEST_BREAKER_POLICY, ...options }));
keyGatesContract('RedisGovernor on a cluster', (options) => new RedisGovernor({ redis, ...options }));
cacheContract(
  'RedisCache on a cluster',
  (options) => new RedisCache({ redis, namespace: `contract-${randomBytes(6).toString('hex')}`, ...options }),
);
recordStoreContract(
  'RedisRecordStore on a cluster',
  (options) => new RedisRecordStore({ redis, namespace: `contract-${randomBytes(6).toString('hex')}`, ...options }),
);

it('serves a scope whose slot another node owns than the only seed given (no MOVED reaches the caller)', async () => {
  const seed = SEEDS[0]!;
  const client = cluster([seed]);
  const probe = pool.open(seed); // a plain connection to the seed node: CLUSTER commands answer there
  if (probe.status !== 'ready') await once(probe, 'ready');
  const seedPort = Number(new URL(seed).port);
  const owner = async (scope: string): Promise<number> => {
    const slot = Number(await probe.cluster('KEYSLOT', `pgw:{${scope}}:x`));
    const ranges = (await probe.cluster('SLOTS')) as unknown as Array<[number, number, [string, number]]>;
    return ranges.find(([from, to]) => slot >= from && slot <= to)![2][1];
  };
  let scope = uniqueScope('cluster');
  while ((await owner(scope)) === seedPort) scope = uniqueScope('cluster');
  const governor = new RedisGovernor({
    redis: client,
    scope,
    sources: { a: { ...UNLIMITED, maxConcurrency: 1 } },
    global: UNLIMITED,
    leaseTtlMs: 30_000,
    policy: TEST_BREAKER_POLICY,
  });
  const admission = await governor.admit('a', 10);
  expect(admission.ok).toBe(true);
  expect(await governor.admit('a', 10)).toMatchObject({ ok: false, gate: 'source_concurrency' });
  if (admission.ok) await admission.finish('success', 7);
  expect(await governor.limiter.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 7 });
  const cache = new RedisCache({ redis: client, namespace: `${scope}-cache` });
  await cache.set('k', 'v', 60_000);
  expect(await cache.get('k')).toBe('v');
});
