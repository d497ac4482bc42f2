import { budgetContract, cacheContract, gateContract, governorContract, limiterContract, settleAndReleaseContract, synchronousGovernanceContract } from '@pgw/testkit';
import { InMemoryCache, InMemoryGate, InMemoryGovernor, InMemoryLimiter } from '../src/index.js';

limiterContract('InMemoryLimiter', (options) => new InMemoryLimiter(options));
settleAndReleaseContract('InMemoryLimiter', (options) => new InMemoryLimiter(options));
gateContract('InMemoryGate', (options) => new InMemoryGate(options));
cacheContract('InMemoryCache', (options) => new InMemoryCache(options));
governorContract('InMemoryGovernor', (options) => new InMemoryGovernor(options));
synchronousGovernanceContract('InMemoryGovernor', (options) => new InMemoryGovernor(options));
budgetContract('InMemoryGovernor', (options) => new InMemoryGovernor(options));
