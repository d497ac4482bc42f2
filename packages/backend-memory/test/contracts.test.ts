import { governorOf } from '@pgw/core';
import { budgetContract, cacheContract, breakerContract, governorContract, limiterContract, recordStoreContract, settleAndReleaseContract, synchronousGovernanceContract, tenantGatesContract, keyGatesContract, TEST_BREAKER_POLICY } from '@pgw/testkit';
import { InMemoryCache, InMemoryBreaker, InMemoryGovernor, InMemoryLimiter, InMemoryRecordStore } from '../src/index.js';

limiterContract('InMemoryLimiter', (options) => new InMemoryLimiter(options));
settleAndReleaseContract('InMemoryLimiter', (options) => new InMemoryLimiter(options));
breakerContract('InMemoryBreaker', (options) => new InMemoryBreaker(options));
cacheContract('InMemoryCache', (options) => new InMemoryCache(options));
recordStoreContract('InMemoryRecordStore', (options) => new InMemoryRecordStore(options));
governorContract('InMemoryGovernor', (options) => new InMemoryGovernor(options));
synchronousGovernanceContract('InMemoryGovernor', (options) => new InMemoryGovernor(options));
budgetContract('InMemoryGovernor', (options) => new InMemoryGovernor(options));
tenantGatesContract('InMemoryGovernor', (options) => new InMemoryGovernor({ policy: TEST_BREAKER_POLICY, ...options }));
keyGatesContract('InMemoryGovernor', (options) => new InMemoryGovernor(options));
governorContract('governorOf(InMemoryLimiter, InMemoryBreaker)', (options) => {
  const limiter = new InMemoryLimiter(options);
  const breaker = new InMemoryBreaker({ ...options, sources: Object.keys(options.sources) });
  return Object.assign(governorOf(limiter, breaker), { limiter, breaker });
});
