/** The queries behind `pgw report` (docs/architecture.md#beyond-the-port) on a SQLite file; the Postgres store answers the same shape. */
import Database from 'better-sqlite3';
import type { CallsBucket, SummaryRange, TelemetrySummary } from '@pgw/core';
import { SUMMARY_NONE_KEY, resolveSummaryRange, summaryFromParts, type SummaryParts } from '@pgw/core/internal';

export interface SqliteSummarySource {
  /** A telemetry file (the live one or a rotated one); opened read-only. */
  path: string;
}

/** Nearest rank: the smallest latency whose rank reaches p% of the samples (Postgres `percentile_disc`). */
const percentile = (p: number) => `MIN(CASE WHEN rn * 100 >= n * ${p} THEN latency_ms END)`;

/** Nearest rank over `wait_ms`, as `percentile` over latencies. */
const waitPercentile = (p: number) => `MIN(CASE WHEN rn * 100 >= n * ${p} THEN wait_ms END)`;

/** The tenant a row is counted for: no tenant and the tenant `""` are the same one. */
const TENANT_KEY = `COALESCE(NULLIF(tenant_id, ''), @none)`;

type PromptCacheRows = SummaryParts['promptCacheBySource'];

const columnsOf = (db: Database.Database) => db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('llm_calls') as string[];

/**
 * A file rotated before schema version 2 has no prompt-cache columns: it reports none; one rotated
 * before version 4 has no cache writes: it reports 0 of them.
 */
function promptCacheParts(
  db: Database.Database,
  query: (by: 'source' | 'tenant_id', writes: string) => PromptCacheRows,
): Pick<SummaryParts, 'promptCacheBySource' | 'promptCacheByTenant'> {
  const columns = columnsOf(db);
  if (!columns.includes('cache_saving_usd')) return { promptCacheBySource: [], promptCacheByTenant: [] };
  const writes = columns.includes('cache_write_prompt_tokens') ? 'COALESCE(SUM(cache_write_prompt_tokens), 0)' : '0';
  return { promptCacheBySource: query('source', writes), promptCacheByTenant: query('tenant_id', writes) };
}

export async function summarize(source: SqliteSummarySource, range?: SummaryRange): Promise<TelemetrySummary> {
  const { since, until, bucketMs } = resolveSummaryRange(range);
  const conditions = [since === undefined ? '' : 'ts >= @since', until === undefined ? '' : 'ts < @until'].filter(Boolean);
  const inRange = conditions.length === 0 ? '1 = 1' : conditions.join(' AND ');
  const params = { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
  const db = new Database(source.path, { readonly: true, fileMustExist: true });
  try {
    const all = <T>(sql: string, extra: Record<string, unknown> = {}) => db.prepare(sql).all({ ...params, ...extra }) as T[];
    const totals = db
      .prepare(
        `SELECT COUNT(DISTINCT logical_call_id) AS calls,
                COALESCE(SUM(event_kind = 'attempt'), 0) AS attempts,
                COALESCE(SUM(event_kind = 'cache_hit'), 0) AS cacheHits,
                COALESCE(SUM(event_kind = 'attempt' AND status = 'cancelled'), 0) AS cancelledAttempts
         FROM llm_calls WHERE ${inRange}`,
      )
      .get(params) as Pick<SummaryParts, 'calls' | 'attempts' | 'cacheHits' | 'cancelledAttempts'>;
    const parts: SummaryParts = {
      ...totals,
      // A call's retries: its unsuccessful attempts, less the last one when the call failed.
      operations: all(
        `WITH per_call AS (
           SELECT operation,
                  SUM(event_kind = 'attempt') AS attempts,
                  SUM(event_kind = 'attempt' AND status <> 'ok') AS unsuccessful,
                  MAX(event_kind = 'terminal_failure') AS failed
           FROM llm_calls WHERE ${inRange} GROUP BY logical_call_id, operation)
         SELECT operation AS key, COUNT(*) AS calls, SUM(attempts) AS attempts,
                SUM(MAX(unsuccessful - failed, 0)) AS retries, SUM(failed) AS failedCalls
         FROM per_call GROUP BY operation ORDER BY operation`,
      ),
      failuresByType: all(
        `SELECT COALESCE(error_type, @none) AS key, COUNT(*) AS count
         FROM llm_calls WHERE event_kind = 'terminal_failure' AND ${inRange} GROUP BY 1 ORDER BY 1`,
        { none: SUMMARY_NONE_KEY },
      ),
      attemptErrors: all(
        `SELECT COALESCE(source, @none) AS source, COALESCE(error_type, @none) AS key, COUNT(*) AS count
         FROM llm_calls WHERE event_kind = 'attempt' AND status = 'error' AND ${inRange} GROUP BY 1, 2 ORDER BY 1, 2`,
        { none: SUMMARY_NONE_KEY },
      ),
      latency: all(
        `WITH ranked AS (
           SELECT COALESCE(source, @none) AS source, latency_ms,
                  ROW_NUMBER() OVER (PARTITION BY source ORDER BY latency_ms) AS rn,
                  COUNT(*) OVER (PARTITION BY source) AS n
           FROM llm_calls
           WHERE event_kind = 'attempt' AND status = 'ok' AND latency_ms IS NOT NULL AND ${inRange})
         SELECT source, MAX(n) AS samples, ${percentile(50)} AS p50, ${percentile(95)} AS p95, ${percentile(99)} AS p99
         FROM ranked GROUP BY source ORDER BY source`,
        { none: SUMMARY_NONE_KEY },
      ),
      costBySource: all(
        `SELECT COALESCE(source, @none) AS key, COALESCE(SUM(cost_usd), 0) AS cost
         FROM llm_calls WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1 ORDER BY 1`,
        { none: SUMMARY_NONE_KEY },
      ),
      costByTenant: all(
        `SELECT COALESCE(tenant_id, @none) AS key, COALESCE(SUM(cost_usd), 0) AS cost
         FROM llm_calls WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1 ORDER BY 1`,
        { none: SUMMARY_NONE_KEY },
      ),
      costByScopeTenant: all(
        `SELECT scope, COALESCE(tenant_id, @none) AS key, COALESCE(SUM(cost_usd), 0) AS cost
         FROM llm_calls WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1, 2 ORDER BY 1, 2`,
        { none: SUMMARY_NONE_KEY },
      ),
      ...promptCacheParts(db, (by, writes) =>
        all(
          `SELECT COALESCE(${by}, @none) AS key, COALESCE(SUM(prompt_tokens), 0) AS promptTokens,
                  COALESCE(SUM(cached_prompt_tokens), 0) AS cachedPromptTokens, ${writes} AS cacheWritePromptTokens,
                  COALESCE(SUM(cache_saving_usd), 0) AS savingUsd
           FROM llm_calls WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1 ORDER BY 1`,
          { none: SUMMARY_NONE_KEY },
        ),
      ),
      tenants: all(
        `WITH per_call AS (
           SELECT MIN(${TENANT_KEY}) AS key, MAX(event_kind = 'terminal_failure') AS failed,
                  COALESCE(SUM(CASE WHEN event_kind = 'attempt' THEN cost_usd END), 0) AS cost
           FROM llm_calls WHERE ${inRange} GROUP BY logical_call_id)
         SELECT key, COUNT(*) AS calls, SUM(failed) AS failedCalls, SUM(cost) AS cost
         FROM per_call GROUP BY key ORDER BY key`,
        { none: SUMMARY_NONE_KEY },
      ),
      // A file rotated before schema version 5 has no waits: it reports none.
      tenantWaits: columnsOf(db).includes('wait_ms')
        ? all(
            `WITH ranked AS (
               SELECT ${TENANT_KEY} AS key, COALESCE(priority, @none) AS priority, wait_ms,
                      ROW_NUMBER() OVER (PARTITION BY ${TENANT_KEY}, priority ORDER BY wait_ms) AS rn,
                      COUNT(*) OVER (PARTITION BY ${TENANT_KEY}, priority) AS n
               FROM llm_calls WHERE event_kind = 'attempt' AND wait_ms IS NOT NULL AND ${inRange})
             SELECT key, priority, MAX(n) AS samples, ${waitPercentile(50)} AS p50, ${waitPercentile(95)} AS p95
             FROM ranked GROUP BY key, priority ORDER BY key, priority`,
            { none: SUMMARY_NONE_KEY },
          )
        : [],
      callsOverTime: all<CallsBucket>(
        `WITH calls AS (
           SELECT MIN(ts) AS first_ts, MAX(event_kind = 'terminal_failure') AS failed
           FROM llm_calls WHERE ${inRange} GROUP BY logical_call_id)
         -- numbers bind as REAL, so the bucket needs the cast to be floored
         SELECT CAST(first_ts / @bucketMs AS INTEGER) * @bucketMs AS bucket, COUNT(*) AS calls, SUM(failed) AS failures
         FROM calls GROUP BY 1 ORDER BY 1`,
        { bucketMs },
      ),
    };
    return summaryFromParts(parts);
  } finally {
    db.close();
  }
}
