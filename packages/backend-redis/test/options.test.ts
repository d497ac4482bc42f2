import { afterAll, expect, it } from 'vitest';
import type { BreakerPolicy } from '@pgw/core';
import { createRedisConnection, RedisCache, RedisGate, RedisLimiter } from '../src/index.js';
import { connectionPool } from './redis.js';

const pool = connectionPool();
const redis = pool.open();
afterAll(() => pool.closeAll());

const LIMITS = { rpm: 0, tpm: 0, maxConcurrency: 0 };
const POLICY: BreakerPolicy = {
  failureThreshold: 3,
  failureRate: 0.5,
  windowMs: 60_000,
  minSamples: 10,
  cooldownMs: 1_000,
  maxCooldownMs: 8_000,
  probeTtlMs: 5_000,
};

it.each([
  ['a scope that would break the hash tag', /scope/, () => new RedisLimiter({ redis, scope: 'a}b', sources: {}, global: LIMITS, leaseTtlMs: 1 })],
  ['an empty scope', /scope/, () => new RedisGate({ redis, scope: '', sources: [], policy: POLICY })],
  ['a lease of 0', /leaseTtlMs/, () => new RedisLimiter({ redis, scope: 's', sources: {}, global: LIMITS, leaseTtlMs: 0 })],
  [
    'a fractional source limit',
    /sources\.a\.rpm/,
    () => new RedisLimiter({ redis, scope: 's', sources: { a: { ...LIMITS, rpm: 1.5 } }, global: LIMITS, leaseTtlMs: 1 }),
  ],
  ['a negative global limit', /global\.tpm/, () => new RedisLimiter({ redis, scope: 's', sources: {}, global: { ...LIMITS, tpm: -1 }, leaseTtlMs: 1 })],
  ['a failure rate above 1', /failureRate/, () => new RedisGate({ redis, scope: 's', sources: [], policy: { ...POLICY, failureRate: 1.5 } })],
  ['a cooldown cap below the cooldown', /maxCooldownMs/, () => new RedisGate({ redis, scope: 's', sources: [], policy: { ...POLICY, maxCooldownMs: 10 } })],
  ['a cache bound of 0', /maxEntries/, () => new RedisCache({ redis, maxEntries: 0 })],
  ['a cache namespace with a brace', /namespace/, () => new RedisCache({ redis, namespace: '{x' })],
  ['a command timeout of NaN', /commandTimeoutMs/, () => new RedisGate({ redis, scope: 's', sources: [], policy: POLICY, commandTimeoutMs: Number.NaN })],
  ['a negative connect timeout', /connectTimeoutMs/, () => createRedisConnection('redis://127.0.0.1:6379', { connectTimeoutMs: -1 })],
])('rejects %s with a RangeError naming it', (_label, name, construct) => {
  expect(construct).toThrow(RangeError);
  expect(construct).toThrow(name);
});
