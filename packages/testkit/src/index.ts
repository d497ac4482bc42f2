// Where the behaviours live: each port's contract suite is one *-contract.ts file (governor-contract.ts,
// limiter-contract.ts with the model-based run of limiter-property.ts, breaker-contract.ts,
// budget-contract.ts, tenant-contract.ts, key-contract.ts, cache-contract.ts, record-store-contract.ts,
// batch-store-contract.ts, key-store-contract.ts, recorder-contract.ts, synchronous-contract.ts, settle-release-contract.ts), sharing
// contract-support.ts and the policies of fixtures.ts; model-contract/ for the model ports;
// fake-clock.ts drives time and deferred.ts settles a promise by hand; private-redis.ts and
// private-postgres.ts start servers of a test's own; telemetry-rows.ts makes rows and recorder-bench.ts
// runs the stores' throughput benchmark; openapi.ts validates against an OpenAPI document's schemas,
// openapi-arbitrary.ts draws values from them, server-sent-events.ts reads an SSE text.
// The public surface of @pgw/testkit, curated by hand (scripts/check-exports.mjs checks it against
// exports.txt). The contract suites call vitest's describe/it: vitest is a peer dependency.

// Contract suites of the ports, with the factories an adapter hands them
export { limiterContract, LIMITER_WINDOW_MS, type LimiterFactory, type LimiterFactoryOptions } from './limiter-contract.js';
export { settleAndReleaseContract } from './settle-release-contract.js';
export { breakerContract, type BreakerFactory, type BreakerFactoryOptions } from './breaker-contract.js';
export {
  governorContract,
  type GovernorFactory,
  type GovernorFactoryOptions,
  type GovernorUnderTest,
} from './governor-contract.js';
export { synchronousGovernanceContract } from './synchronous-contract.js';
export { cacheContract, type CacheFactory, type CacheFactoryOptions } from './cache-contract.js';
export { recordStoreContract, type RecordStoreFactory } from './record-store-contract.js';
export { batchStoreContract, type BatchStoreContractOptions } from './batch-store-contract.js';
export { keyStoreContract, sampleStoredKey, type KeyStoreFactory, type KeyStorePlace } from './key-store-contract.js';
export { budgetContract, type BudgetGovernorFactory } from './budget-contract.js';
export { tenantGatesContract, type TenantGovernorFactory, type TenantGovernorFactoryOptions } from './tenant-contract.js';
export { keyGatesContract, type KeyGovernorFactory } from './key-contract.js';
export {
  recorderContract,
  summaryContract,
  type RecorderHarness,
  type RecorderHarnessFactory,
  type SummaryHarness,
} from './recorder-contract.js';

// Contract suites of the model port, and what a provider's own tests reuse from them
export {
  chatModelContract,
  embeddingModelContract,
  ocrModelContract,
  CONTRACT_HEADER_VALUE,
  CONTRACT_KEY,
  recordingAttempt,
  startLoopbackUpstream,
  type ContractModelOptions,
  type ContractReply,
  type ContractRequest,
  type LoopbackUpstream,
  type MakeModel,
  type RecordingAttempt,
} from './model-contract/index.js';

// Fakes and fixtures
export { FakeClock, FakeSleep } from './fake-clock.js';
export { deferred, type Deferred } from './deferred.js';
export { idleBreakerSnapshot, TEST_BREAKER_POLICY, UNLIMITED } from './fixtures.js';
export { sampleTelemetryRow, telemetryRow } from './telemetry-rows.js';
export { measureRecorderThroughput, type ThroughputRecorderFactory, type ThroughputRun } from './recorder-bench.js';

// Servers of a test's own
export { spareFreePort, spawnRedisServer, startPrivateRedis, type PrivateRedis } from './private-redis.js';
export { startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';
