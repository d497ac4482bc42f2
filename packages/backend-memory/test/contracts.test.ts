import { cacheContract, gateContract, limiterContract } from '@pgw/testkit';
import { InMemoryCache, InMemoryGate, InMemoryLimiter } from '../src/index.js';

limiterContract('InMemoryLimiter', (options) => new InMemoryLimiter(options));
gateContract('InMemoryGate', (options) => new InMemoryGate(options));
cacheContract('InMemoryCache', (options) => new InMemoryCache(options));
