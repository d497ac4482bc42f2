/**
 * Recorders without a store (no-op, in-memory), the row encoding every store shares, and the
 * shape of the summary the stores' report queries return (docs/architecture.md#telemetry, docs/architecture.md#beyond-the-port `pgw report`).
 */
import type { TelemetryRecorder, TelemetryRecorderStats } from './ports.js';
import { TELEMETRY_COLUMNS, type TelemetryRow } from './telemetry.js';
import { wellFormed, wellFormedJson } from './well-formed.js';

/** Telemetry switched off: every row is ignored, nothing is counted. */
export class NoopRecorder implements TelemetryRecorder {
  record(_row: TelemetryRow): void {}
  async flush(): Promise<void> {}
  stats(): TelemetryRecorderStats {
    return { written: 0, dropped: 0, queued: 0 };
  }
  async close(): Promise<void> {}
}

/** Keeps rows in memory, for tests of the packages that emit telemetry. Rows are snapshots taken at `record`. */
export class MemoryRecorder implements TelemetryRecorder {
  private readonly kept: TelemetryRow[] = [];
  private dropped = 0;
  private closed = false;

  get rows(): readonly TelemetryRow[] {
    return this.kept;
  }

  record(row: TelemetryRow): void {
    if (this.closed) {
      this.dropped += 1;
      return;
    }
    try {
      this.kept.push(structuredClone(row));
    } catch {
      this.dropped += 1;
    }
  }

  async flush(): Promise<void> {}

  stats(): TelemetryRecorderStats {
    return { written: this.kept.length, dropped: this.dropped, queued: 0 };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

// ── Row encoding shared by the stores ────────────────────────────────────────────────────────

type RowField = (typeof TELEMETRY_COLUMNS)[number][1];

const REQUIRED_TEXT: ReadonlySet<RowField> = new Set(['scope', 'operation', 'eventKind', 'callId', 'logicalCallId', 'status']);
const INTEGER_FIELDS: ReadonlySet<RowField> = new Set(['ts', 'promptTokens', 'completionTokens', 'reasoningTokens', 'cachedPromptTokens', 'cacheWritePromptTokens', 'attempts', 'toolCalls']);
const REAL_FIELDS: ReadonlySet<RowField> = new Set(['costUsd', 'cacheSavingUsd', 'latencyMs', 'ttftMs', 'totalLatencyMs', 'waitMs']);

/** One column value as a store binds it: `meta` is JSON text, absent values are `null`. */
export type TelemetryColumnValue = string | number | null;

/**
 * The row's values in `TELEMETRY_COLUMNS` order. Integer columns (ts, tokens, attempts) are rounded,
 * non-finite numbers become `null`. Throws a TypeError naming the field for a row no store could take,
 * so the recorder drops that row alone instead of failing its whole batch.
 */
export function telemetryRowValues(row: TelemetryRow): TelemetryColumnValue[] {
  if (typeof row.ts !== 'number' || !Number.isFinite(row.ts)) {
    throw new TypeError(`telemetry row field ts must be a finite number (epoch ms), got ${String(row.ts)}`);
  }
  return TELEMETRY_COLUMNS.map(([, field]) => encodeField(field, row[field]));
}

function encodeField(field: RowField, value: unknown): TelemetryColumnValue {
  if (value === undefined || value === null) {
    if (REQUIRED_TEXT.has(field)) throw new TypeError(`telemetry row field ${field} is required`);
    return null;
  }
  if (field === 'meta') {
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new TypeError('telemetry row field meta must be a plain object');
    }
    return wellFormedJson(value);
  }
  if (INTEGER_FIELDS.has(field) || REAL_FIELDS.has(field)) {
    if (typeof value !== 'number') throw new TypeError(`telemetry row field ${field} must be a number, got ${typeof value}`);
    if (!Number.isFinite(value)) return null;
    return INTEGER_FIELDS.has(field) ? Math.round(value) : value;
  }
  if (typeof value !== 'string') throw new TypeError(`telemetry row field ${field} must be a string, got ${typeof value}`);
  if (value === '' && REQUIRED_TEXT.has(field)) throw new TypeError(`telemetry row field ${field} must not be empty`);
  return wellFormed(value);
}

// ── Report summary (what each store's `summarize` returns) ──────────────────────────────────

/** Half-open time range `[since, until)` in epoch ms; either end may be open. */
export interface SummaryRange {
  since?: number;
  until?: number;
  /** Width of the `callsOverTime` buckets (default one hour). */
  bucketMs?: number;
}

/** Nearest-rank percentiles (the same definition as Postgres `percentile_disc`). */
export interface LatencyPercentiles {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface CallsBucket {
  /** Bucket start, epoch ms. A logical call falls in the bucket of its first row. */
  bucket: number;
  calls: number;
  /** Logical calls of the bucket that ended in a `terminal_failure` row. */
  failures: number;
}

/** Rows without a source or tenant are summed under this key. */
export const SUMMARY_NONE_KEY = '(none)';

export interface TelemetrySummary {
  /** Distinct logical calls. */
  calls: number;
  /** `attempt` rows. */
  attempts: number;
  /** `cache_hit` rows. */
  cacheHits: number;
  /** Failed logical calls (`terminal_failure` rows) by `error_type`. */
  failuresByType: Record<string, number>;
  /**
   * Failed attempts (`attempt` rows with status `error`) by `error_type`, whether or not the call was
   * retried into success: the 429s, 5xx and revoked keys a run absorbed.
   */
  attemptErrorsByType: Record<string, number>;
  /** The same failed attempts per source, then per `error_type`. */
  attemptErrorsBySource: Record<string, Record<string, number>>;
  /** `attempt` rows with status `cancelled` (caller abort, deadline): not failures of the source. */
  cancelledAttempts: number;
  /**
   * Re-attempts of a call: attempts made because an earlier attempt of the same call failed or was
   * cancelled (an embedding call's further batches are not retries). Per call, its unsuccessful
   * attempts, less one when the call failed (its last unsuccessful attempt had no successor).
   */
  retries: number;
  /** The same figures per operation (`chat`, `embed`, `ocr_text`, …), so chat and embedding calls show apart. */
  operations: Record<string, OperationSummary>;
  /** Latency of successful attempts, per source. */
  latency: Record<string, LatencyPercentiles>;
  /** Sum of `cost_usd` over attempts (what was billed), per source, per tenant and per scope (spend budgets are per scope). */
  costBySource: Record<string, number>;
  costByTenant: Record<string, number>;
  costByScope: Record<string, number>;
  /** The same per scope, then per tenant (`(none)` for calls without one): what each tenant's own budget of a scope spent. */
  costByScopeTenant: Record<string, Record<string, number>>;
  /** Prompt-cache use of attempts, per source and per tenant (see PromptCacheUse). */
  promptCacheBySource: Record<string, PromptCacheUse>;
  promptCacheByTenant: Record<string, PromptCacheUse>;
  /** Per tenant (`(none)` for calls without one or with the tenant `""`): its calls, failures, cost and admission waits. */
  tenants: Record<string, TenantSummary>;
  callsOverTime: CallsBucket[];
}

export interface TenantSummary {
  /** Distinct logical calls. */
  calls: number;
  /** Logical calls that ended in a `terminal_failure` row. */
  failedCalls: number;
  /** Sum of `cost_usd` over its attempts. */
  costUsd: number;
  /** Nearest-rank percentiles of `wait_ms` over its attempts that recorded one, per priority class. */
  waitByPriority: Record<string, WaitPercentiles>;
}

export interface WaitPercentiles {
  samples: number;
  p50: number;
  p95: number;
}

export interface OperationSummary {
  /** Distinct logical calls. */
  calls: number;
  /** `attempt` rows. */
  attempts: number;
  /** Re-attempts, as `TelemetrySummary.retries`. */
  retries: number;
  /** Logical calls that ended in a `terminal_failure` row. */
  failedCalls: number;
}

/** Prompt tokens of attempts, the part served from the upstream's prompt cache, and what that saved. */
export interface PromptCacheUse {
  promptTokens: number;
  cachedPromptTokens: number;
  /** The part written to the prompt cache (billed at the cache-write price). */
  cacheWritePromptTokens: number;
  /** Sum of `cache_saving_usd`. */
  savingUsd: number;
}

export const DEFAULT_SUMMARY_BUCKET_MS = 3_600_000;

/** Validates a summary range (bad bounds throw a RangeError naming the key) and fills the bucket width. */
export function resolveSummaryRange(range: SummaryRange = {}): Required<Pick<SummaryRange, 'bucketMs'>> & SummaryRange {
  for (const key of ['since', 'until'] as const) {
    const value = range[key];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      throw new RangeError(`summarize(${key}) must be a finite epoch-ms number, got ${String(value)}`);
    }
  }
  const bucketMs = range.bucketMs ?? DEFAULT_SUMMARY_BUCKET_MS;
  if (typeof bucketMs !== 'number' || !Number.isSafeInteger(bucketMs) || bucketMs <= 0) {
    throw new RangeError(`summarize(bucketMs) must be a positive integer, got ${String(bucketMs)}`);
  }
  return { ...range, bucketMs };
}

/** What a store's report queries return, before it is shaped into a TelemetrySummary. */
export interface SummaryParts {
  calls: number;
  attempts: number;
  cacheHits: number;
  /** Per operation; the summary's `retries` is their sum. */
  operations: ReadonlyArray<{ key: string } & OperationSummary>;
  cancelledAttempts: number;
  failuresByType: ReadonlyArray<{ key: string; count: number }>;
  /** Failed attempts counted per (source, error_type); both summary maps of attempt errors derive from it. */
  attemptErrors: ReadonlyArray<{ source: string; key: string; count: number }>;
  latency: ReadonlyArray<{ source: string } & LatencyPercentiles>;
  costBySource: ReadonlyArray<{ key: string; cost: number }>;
  costByTenant: ReadonlyArray<{ key: string; cost: number }>;
  /** Keyed by tenant within each scope; the summary's `costByScope` is their sum per scope. */
  costByScopeTenant: ReadonlyArray<{ scope: string; key: string; cost: number }>;
  promptCacheBySource: ReadonlyArray<{ key: string } & PromptCacheUse>;
  promptCacheByTenant: ReadonlyArray<{ key: string } & PromptCacheUse>;
  tenants: ReadonlyArray<{ key: string; calls: number; failedCalls: number; cost: number }>;
  /** Empty for a store without the `wait_ms` column (a SQLite file rotated before schema version 5). */
  tenantWaits: ReadonlyArray<{ key: string; priority: string } & WaitPercentiles>;
  callsOverTime: readonly CallsBucket[];
}

export function summaryFromParts(parts: SummaryParts): TelemetrySummary {
  const costs = (rows: SummaryParts['costBySource']) => Object.fromEntries(rows.map((r) => [r.key, r.cost]));
  const attemptErrorsByType: Record<string, number> = {};
  const attemptErrorsBySource: Record<string, Record<string, number>> = {};
  for (const { source, key, count } of parts.attemptErrors) {
    attemptErrorsByType[key] = (attemptErrorsByType[key] ?? 0) + count;
    (attemptErrorsBySource[source] ??= {})[key] = count;
  }
  const costByScope: Record<string, number> = {};
  const costByScopeTenant: Record<string, Record<string, number>> = {};
  for (const { scope, key, cost } of parts.costByScopeTenant) {
    costByScope[scope] = (costByScope[scope] ?? 0) + cost;
    (costByScopeTenant[scope] ??= {})[key] = cost;
  }
  return {
    calls: parts.calls,
    attempts: parts.attempts,
    cacheHits: parts.cacheHits,
    failuresByType: Object.fromEntries(parts.failuresByType.map((r) => [r.key, r.count])),
    attemptErrorsByType,
    attemptErrorsBySource,
    cancelledAttempts: parts.cancelledAttempts,
    retries: parts.operations.reduce((sum, operation) => sum + operation.retries, 0),
    operations: Object.fromEntries(
      parts.operations.map(({ key, calls, attempts, retries, failedCalls }) => [key, { calls, attempts, retries, failedCalls }]),
    ),
    latency: Object.fromEntries(
      parts.latency.map(({ source, samples, p50, p95, p99 }) => [source, { samples, p50, p95, p99 }]),
    ),
    costBySource: costs(parts.costBySource),
    costByTenant: costs(parts.costByTenant),
    costByScope,
    costByScopeTenant,
    promptCacheBySource: cacheUses(parts.promptCacheBySource),
    promptCacheByTenant: cacheUses(parts.promptCacheByTenant),
    tenants: tenantSummaries(parts),
    callsOverTime: parts.callsOverTime.map(({ bucket, calls, failures }) => ({ bucket, calls, failures })),
  };
}

function tenantSummaries({ tenants, tenantWaits }: SummaryParts): Record<string, TenantSummary> {
  const summaries: Record<string, TenantSummary> = Object.fromEntries(
    tenants.map(({ key, calls, failedCalls, cost }) => [key, { calls, failedCalls, costUsd: cost, waitByPriority: {} }]),
  );
  for (const { key, priority, samples, p50, p95 } of tenantWaits) {
    const summary = summaries[key];
    if (summary !== undefined) summary.waitByPriority[priority] = { samples, p50, p95 };
  }
  return summaries;
}

function cacheUses(rows: SummaryParts['promptCacheBySource']): Record<string, PromptCacheUse> {
  return Object.fromEntries(
    rows.map(({ key, promptTokens, cachedPromptTokens, cacheWritePromptTokens, savingUsd }) => [
      key,
      { promptTokens, cachedPromptTokens, cacheWritePromptTokens, savingUsd },
    ]),
  );
}
