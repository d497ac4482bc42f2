import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { budgetContract, tenantGatesContract, keyGatesContract, TEST_BREAKER_POLICY, cacheContract, breakerContract, governorContract, limiterContract, recordStoreContract, settleAndReleaseContract } from '@pgw/testkit';
import { RedisCache, RedisBreaker, RedisGovernor, RedisLimiter, RedisRecordStore } from '../src/index.js';
import { connectionPool } from './redis.js';

const pool = connectionPool();
const redis = pool.open();
afterAll(() => pool.closeAll());

limiterContract('RedisLimiter', (options) => new RedisLimiter({ redis, ...options }));
settleAndReleaseContract('RedisLimiter', (options) => new RedisLimiter({ redis, ...options }));
breakerContract('RedisBreaker', (options) => new RedisBreaker({ redis, ...options }));
cacheContract(
  'RedisCache',
  (options) => new RedisCache({ redis, namespace: `contract-${randomBytes(6).toString('hex')}`, ...options }),
);
recordStoreContract(
  'RedisRecordStore',
  (options) => new RedisRecordStore({ redis, namespace: `contract-${randomBytes(6).toString('hex')}`, ...options }),
);
governorContract('RedisGovernor', (options) => new RedisGovernor({ redis, ...options }));
budgetContract('RedisGovernor', (options) => new RedisGovernor({ redis, ...options }));
tenantGatesContract('RedisGovernor', (options) => new RedisGovernor({ redis, policy: TEST_BREAKER_POLICY, ...options }));
keyGatesContract('RedisGovernor', (options) => new RedisGovernor({ redis, ...options }));
