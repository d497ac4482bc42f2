// `@pgw/core/internal`: the helpers the workspace packages share (signal plumbing, the call
// deadline, argument checks, the telemetry stores' queue and summary, pricing arithmetic, thinking
// profiles). Not a user surface: it changes without notice. Only workspace packages import it.
export { isPromise } from './ports.js';
export { TicketLease } from './ticket-lease.js';
export { assertModel, isModel } from './models.js';
export { type CallDeadlineOptions, ensureCallDeadline, withCallDeadline } from './deadline.js';
export {
  type AbortTarget,
  type CombinedSignal,
  combineSignals,
  followSharedSignal,
  followSignal,
  MAX_TIMER_DELAY_MS,
  NEVER_ABORTED,
  sleep,
} from './signals.js';
export { MIN_CUT_PREFIX_CHARS } from './redaction.js';
export {
  assertNoManagedKeys,
  checkEffortMap,
  coerceEffort,
  EFFORT_ORDER,
  mapEffort,
  observeThinking,
  parseEffortMap,
  providerProfile,
  ThinkingContradictions,
  type ThinkingSignals,
} from './thinking.js';
export { cacheSavingUsd, costUsd, findModelPrice, parseModelPrice } from './pricing.js';
export { BatchingQueue, type BatchingQueueOptions, type PartialWrite } from './telemetry-queue.js';
export { QueuedRecorder, type QueuedRecorderOptions } from './queued-recorder.js';
export {
  DEFAULT_SUMMARY_BUCKET_MS,
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
export { wellFormed, wellFormedDeep, wellFormedJson } from './well-formed.js';
export {
  assertBudgetPolicy,
  budgetPeriodAt,
  budgetTenantOf,
  budgetUsdOf,
  fromNanoUsd,
  MAX_BUDGET_USD,
  NANO_PER_USD,
  toNanoUsd,
  worstCaseCostUsd,
} from './budget.js';
