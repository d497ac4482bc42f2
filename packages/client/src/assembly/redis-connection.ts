/**
 * The one way a client (and the record store) connects to Redis. Its own module, kept out of the
 * public declarations' graph: its type names the optional @pgw/backend-redis, which a consumer
 * without Redis does not have.
 */
import type { GatewaySettings } from '@pgw/core';
import { loadOptional } from './optional-package.js';
import type { OwnedResources } from './owned-resources.js';

/**
 * The Redis package and a connection of the mode `backends` names, closed with `owned`. The settings
 * schema requires REDIS_URL whenever a backend is redis (a list only in cluster or sentinel mode) and
 * the master's name exactly in sentinel mode.
 */
export async function connectRedis(
  backends: RedisBackend,
  neededFor: string,
  owned: OwnedResources,
): Promise<{ pkg: RedisPackage; redis: ConstructorParameters<RedisPackage['RedisCache']>[0]['redis'] }> {
  const pkg = await loadOptional('@pgw/backend-redis', neededFor, () => import('@pgw/backend-redis'));
  const { redisUrl, redisMode, redisSentinelMaster } = backends;
  const redis =
    redisMode === 'cluster'
      ? pkg.createRedisCluster(redisUrl!.split(','))
      : redisMode === 'sentinel'
        ? pkg.createRedisSentinel(redisUrl!.split(','), { masterName: redisSentinelMaster! })
        : pkg.createRedisConnection(redisUrl!);
  owned.add(async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  return { pkg, redis };
}

type RedisPackage = typeof import('@pgw/backend-redis');
export type RedisBackend = Pick<GatewaySettings['backends'], 'redisUrl' | 'redisMode' | 'redisSentinelMaster'>;
