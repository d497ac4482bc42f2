import { afterAll, expect, it } from 'vitest';
import { TEST_BREAKER_POLICY, UNLIMITED } from '@pgw/testkit';
import { createRedisConnection, createRedisSentinel, RedisCache, RedisBreaker, RedisLimiter } from '../src/index.js';
import { connectionPool } from './redis.js';

const pool = connectionPool();
const redis = pool.open();
afterAll(() => pool.closeAll());

it.each([
  ['a scope that would break the hash tag', /scope/, () => new RedisLimiter({ redis, scope: 'a}b', sources: {}, global: UNLIMITED, leaseTtlMs: 1 })],
  ['an empty scope', /scope/, () => new RedisBreaker({ redis, scope: '', sources: [], policy: TEST_BREAKER_POLICY })],
  ['a lease of 0', /leaseTtlMs/, () => new RedisLimiter({ redis, scope: 's', sources: {}, global: UNLIMITED, leaseTtlMs: 0 })],
  [
    'a fractional source limit',
    /sources\.a\.rpm/,
    () => new RedisLimiter({ redis, scope: 's', sources: { a: { ...UNLIMITED, rpm: 1.5 } }, global: UNLIMITED, leaseTtlMs: 1 }),
  ],
  ['a negative global limit', /global\.tpm/, () => new RedisLimiter({ redis, scope: 's', sources: {}, global: { ...UNLIMITED, tpm: -1 }, leaseTtlMs: 1 })],
  ['a failure rate above 1', /failureRate/, () => new RedisBreaker({ redis, scope: 's', sources: [], policy: { ...TEST_BREAKER_POLICY, failureRate: 1.5 } })],
  ['a cooldown cap below the cooldown', /maxCooldownMs/, () => new RedisBreaker({ redis, scope: 's', sources: [], policy: { ...TEST_BREAKER_POLICY, maxCooldownMs: 10 } })],
  ['a cache bound of 0', /maxEntries/, () => new RedisCache({ redis, maxEntries: 0 })],
  ['a cache namespace with a brace', /namespace/, () => new RedisCache({ redis, namespace: '{x' })],
  ['a command timeout of NaN', /commandTimeoutMs/, () => new RedisBreaker({ redis, scope: 's', sources: [], policy: TEST_BREAKER_POLICY, commandTimeoutMs: Number.NaN })],
  ['a negative connect timeout', /connectTimeoutMs/, () => createRedisConnection('redis://127.0.0.1:6379', { connectTimeoutMs: -1 })],
  ['no sentinel', /sentinels/, () => createRedisSentinel([], { masterName: 'main' })],
  ['a sentinel group without a master name', /masterName/, () => createRedisSentinel(['redis://127.0.0.1:26379'], { masterName: '' })],
])('rejects %s with a RangeError naming it', (_label, name, construct) => {
  expect(construct).toThrow(RangeError);
  expect(construct).toThrow(name);
});
