// `@pgw/core/internal`: the helpers our packages share (signal plumbing, the call deadline, argument
// checks, the telemetry stores' queue and summary, pricing arithmetic, thinking profiles, the SQL transaction of the PostgreSQL adapters, the key stores' rows). Its
// promise: it moves with core's exact version, and every package of ours depends on the exact core
// version it was released with, so no mismatched pair can meet; applications never import it. A name
// only core uses is not listed here.
export { isPromise } from './ports.js';
export { keyRowOf, storedKeyOf, type KeyRow } from './key-rows.js';
export { TicketLease } from './ticket-lease.js';
export { assertModel, isModel } from './models.js';
export { ensureCallDeadline, withCallDeadline } from './deadline.js';
export {
  combineSignals,
  followSignal,
  joinSharedSignal,
  leaveSharedSignal,
  MAX_TIMER_DELAY_MS,
  NEVER_ABORTED,
  sleep,
} from './signals.js';
export { MIN_CUT_PREFIX_CHARS } from './redaction.js';
export {
  assertNoManagedKeys,
  checkEffortMap,
  coerceEffort,
  mapEffort,
  observeThinking,
  parseEffortMap,
  providerProfile,
  ThinkingContradictions,
} from './thinking.js';
export { cacheSavingUsd, costUsd, findModelPrice, parseModelPrice } from './pricing.js';
export { inTransaction } from './sql-transaction.js';
export type { PooledSqlClient } from './sql-transaction.js';
export type { PartialWrite } from './telemetry-queue.js';
export { QueuedRecorder } from './queued-recorder.js';
export {
  resolveSummaryRange,
  SUMMARY_NONE_KEY,
  summaryFromParts,
  type SummaryParts,
  type TelemetryColumnValue,
  telemetryRowValues,
} from './recorders.js';
export {
  assertBreakerPolicy,
  assertNonNegativeInteger,
  assertPositiveInteger,
  assertPositiveMs,
  optionalPositiveMs,
} from './arguments.js';
export { wellFormed, wellFormedDeep } from './well-formed.js';
export {
  assertBudgetPolicy,
  budgetPeriodAt,
  budgetTenantOf,
  budgetUsdOf,
  fromNanoUsd,
  MAX_BUDGET_USD,
  toNanoUsd,
  worstCaseCostUsd,
} from './budget.js';
export { assertTenantPolicy, batchLimitsOf, batchShareBinds, NO_TENANT_POLICY, tenantsBounded, tenantShareOf } from './tenants.js';
export { resultOf, type ResultRow } from './batch-engine.js';
