/** The queries behind `pgw report` (docs/architecture.md#beyond-the-port) on Postgres; the SQLite store answers the same shape. */
import pg from 'pg';
import type { CallsBucket, SummaryRange, TelemetrySummary } from '@pgw/core';
import { SUMMARY_NONE_KEY, resolveSummaryRange, summaryFromParts, type SummaryParts } from '@pgw/core/internal';
import { storeNames } from './names.js';

export interface PgSummarySource {
  /** Exactly one of `dsn` (a short-lived client is opened and closed) and `pool`. */
  dsn?: string;
  pool?: pg.Pool;
  schema?: string;
  table?: string;
}

/** Nearest rank: the smallest latency whose rank reaches p% of the samples (what `percentile_disc` gives). */
const percentile = (p: number) => `MIN(CASE WHEN rn * 100 >= n * ${p} THEN latency_ms END)`;

/** Nearest rank over `wait_ms`, as `percentile` over latencies. */
const waitPercentile = (p: number) => `MIN(CASE WHEN rn * 100 >= n * ${p} THEN wait_ms END)`;

/** The tenant a row is counted for: no tenant and the tenant `""` are the same one. */
const TENANT_KEY = `COALESCE(NULLIF(tenant_id, ''), $3)`;

/** Prompt-cache use of attempts grouped `by` a column; sums as float8 (a bigint would arrive as a string). */
const promptCacheQuery = (by: 'source' | 'tenant_id') => (table: string, inRange: string) =>
  `SELECT COALESCE(${by}, $3) AS key, COALESCE(SUM(prompt_tokens), 0)::float8 AS "promptTokens",
          COALESCE(SUM(cached_prompt_tokens), 0)::float8 AS "cachedPromptTokens",
          COALESCE(SUM(cache_write_prompt_tokens), 0)::float8 AS "cacheWritePromptTokens",
          COALESCE(SUM(cache_saving_usd), 0)::float8 AS "savingUsd"
   FROM ${table} WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1 ORDER BY 1`;

export async function summarize(source: PgSummarySource, range?: SummaryRange): Promise<TelemetrySummary> {
  if ((source.dsn === undefined) === (source.pool === undefined)) {
    throw new RangeError('summarize needs exactly one of dsn and pool');
  }
  const { qualifiedTable: table } = storeNames('summarize', source.schema, source.table);
  const { since, until, bucketMs } = resolveSummaryRange(range);
  // $1 = since, $2 = until, $3 = the key of absent sources/tenants, $4 = bucket width; NULL bounds are open.
  const inRange = '($1::timestamptz IS NULL OR ts >= $1) AND ($2::timestamptz IS NULL OR ts < $2)';
  const bounds = [since === undefined ? null : new Date(since), until === undefined ? null : new Date(until)];
  const client = source.pool ?? new pg.Client({ connectionString: source.dsn });
  if (client instanceof pg.Client) await client.connect();
  try {
    const all = async <T extends object>(sql: string, extra: unknown[] = []) =>
      (await client.query<T>(sql, [...bounds, ...extra])).rows;
    const [totals] = await all<
      Pick<SummaryParts, 'calls' | 'attempts' | 'cacheHits' | 'cancelledAttempts'>
    >(
      `SELECT COUNT(DISTINCT logical_call_id)::int AS "calls",
              COUNT(*) FILTER (WHERE event_kind = 'attempt')::int AS "attempts",
              COUNT(*) FILTER (WHERE event_kind = 'cache_hit')::int AS "cacheHits",
              COUNT(*) FILTER (WHERE event_kind = 'attempt' AND status = 'cancelled')::int AS "cancelledAttempts"
       FROM ${table} WHERE ${inRange}`,
    );
    const parts: SummaryParts = {
      ...totals!,
      // A call's retries: its unsuccessful attempts, less the last one when the call failed.
      operations: await all(
        `WITH per_call AS (
           SELECT operation,
                  COUNT(*) FILTER (WHERE event_kind = 'attempt') AS attempts,
                  COUNT(*) FILTER (WHERE event_kind = 'attempt' AND status <> 'ok') AS unsuccessful,
                  bool_or(event_kind = 'terminal_failure') AS failed
           FROM ${table} WHERE ${inRange} GROUP BY logical_call_id, operation)
         SELECT operation AS key, COUNT(*)::int AS calls, SUM(attempts)::int AS attempts,
                SUM(GREATEST(unsuccessful - CASE WHEN failed THEN 1 ELSE 0 END, 0))::int AS retries,
                COUNT(*) FILTER (WHERE failed)::int AS "failedCalls"
         FROM per_call GROUP BY operation ORDER BY operation`,
      ),
      failuresByType: await all(
        `SELECT COALESCE(error_type, $3) AS key, COUNT(*)::int AS count
         FROM ${table} WHERE event_kind = 'terminal_failure' AND ${inRange} GROUP BY 1 ORDER BY 1`,
        [SUMMARY_NONE_KEY],
      ),
      attemptErrors: await all(
        `SELECT COALESCE(source, $3) AS source, COALESCE(error_type, $3) AS key, COUNT(*)::int AS count
         FROM ${table} WHERE event_kind = 'attempt' AND status = 'error' AND ${inRange} GROUP BY 1, 2 ORDER BY 1, 2`,
        [SUMMARY_NONE_KEY],
      ),
      latency: await all(
        `WITH ranked AS (
           SELECT COALESCE(source, $3) AS source, latency_ms,
                  ROW_NUMBER() OVER (PARTITION BY source ORDER BY latency_ms) AS rn,
                  COUNT(*) OVER (PARTITION BY source) AS n
           FROM ${table}
           WHERE event_kind = 'attempt' AND status = 'ok' AND latency_ms IS NOT NULL AND ${inRange})
         SELECT source, MAX(n)::int AS samples, ${percentile(50)} AS p50, ${percentile(95)} AS p95, ${percentile(99)} AS p99
         FROM ranked GROUP BY source ORDER BY source`,
        [SUMMARY_NONE_KEY],
      ),
      costBySource: await all(
        `SELECT COALESCE(source, $3) AS key, COALESCE(SUM(cost_usd), 0)::float8 AS cost
         FROM ${table} WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1 ORDER BY 1`,
        [SUMMARY_NONE_KEY],
      ),
      costByTenant: await all(
        `SELECT COALESCE(tenant_id, $3) AS key, COALESCE(SUM(cost_usd), 0)::float8 AS cost
         FROM ${table} WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1 ORDER BY 1`,
        [SUMMARY_NONE_KEY],
      ),
      costByScopeTenant: await all(
        `SELECT scope, COALESCE(tenant_id, $3) AS key, COALESCE(SUM(cost_usd), 0)::float8 AS cost
         FROM ${table} WHERE event_kind = 'attempt' AND ${inRange} GROUP BY 1, 2 ORDER BY 1, 2`,
        [SUMMARY_NONE_KEY],
      ),
      promptCacheBySource: await all(promptCacheQuery('source')(table, inRange), [SUMMARY_NONE_KEY]),
      promptCacheByTenant: await all(promptCacheQuery('tenant_id')(table, inRange), [SUMMARY_NONE_KEY]),
      tenants: await all(
        `WITH per_call AS (
           SELECT MIN(${TENANT_KEY}) AS key, bool_or(event_kind = 'terminal_failure') AS failed,
                  COALESCE(SUM(cost_usd) FILTER (WHERE event_kind = 'attempt'), 0) AS cost
           FROM ${table} WHERE ${inRange} GROUP BY logical_call_id)
         SELECT key, COUNT(*)::int AS calls, COUNT(*) FILTER (WHERE failed)::int AS "failedCalls", SUM(cost)::float8 AS cost
         FROM per_call GROUP BY key ORDER BY key`,
        [SUMMARY_NONE_KEY],
      ),
      tenantWaits: await all(
        `WITH ranked AS (
           SELECT ${TENANT_KEY} AS key, COALESCE(priority, $3) AS priority, wait_ms,
                  ROW_NUMBER() OVER (PARTITION BY ${TENANT_KEY}, priority ORDER BY wait_ms) AS rn,
                  COUNT(*) OVER (PARTITION BY ${TENANT_KEY}, priority) AS n
           FROM ${table} WHERE event_kind = 'attempt' AND wait_ms IS NOT NULL AND ${inRange})
         SELECT key, priority, MAX(n)::int AS samples, ${waitPercentile(50)} AS p50, ${waitPercentile(95)} AS p95
         FROM ranked GROUP BY key, priority ORDER BY key, priority`,
        [SUMMARY_NONE_KEY],
      ),
      callsOverTime: await all<CallsBucket>(
        `WITH calls AS (
           SELECT MIN(ts) AS first_ts, bool_or(event_kind = 'terminal_failure') AS failed
           FROM ${table} WHERE ${inRange} GROUP BY logical_call_id)
         SELECT (floor(extract(epoch FROM first_ts) * 1000 / $3) * $3)::float8 AS bucket,
                COUNT(*)::int AS calls, COUNT(*) FILTER (WHERE failed)::int AS failures
         FROM calls GROUP BY 1 ORDER BY 1`,
        [bucketMs],
      ),
    };
    return summaryFromParts(parts);
  } finally {
    if (client instanceof pg.Client) await client.end();
  }
}
