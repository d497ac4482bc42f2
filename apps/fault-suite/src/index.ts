export { until } from './until.js';
export { Load, type Outcome, type LoadOptions } from './load.js';
export { recordFigure, printFigures, ms } from './figures.js';
export { startMock, uniqueName, chatScope } from './upstream.js';
export { startCluster, startSentinelGroup, type PrivateCluster, type PrivateSentinelGroup, type RedisProcess } from './redis-topology.js';
