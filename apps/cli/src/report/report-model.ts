/** What one `pgw report` run shows, whichever way it is rendered (table, HTML, JSON). */
import type { TelemetrySummary } from '@pgw/core';
import type { BatchJobRow } from './batch-jobs.js';
import type { BudgetSpend } from './budgets.js';
import { formatCount } from './format.js';

export interface Report {
  summary: TelemetrySummary;
  /** Where the rows came from (a DSN without its password). */
  sourceLabel: string;
  /** Epoch ms; undefined = open end. */
  since?: number;
  until?: number;
  bucketMs: number;
  generatedAt: number;
  /** The env's spend budgets, each against its scope's spend in its current period. */
  budgets: readonly BudgetSpend[];
  /** The batch jobs of `PGW_BATCH__DIR`'s store, newest first. */
  batchJobs: readonly BatchJobRow[];
}

/** Map entries, largest value first (ties by name), so the heaviest items lead tables and charts. */
export function byValueDesc(record: Readonly<Record<string, number>>): Array<[string, number]> {
  return Object.entries(record).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
}

export function failedCalls(summary: TelemetrySummary): number {
  return Object.values(summary.failuresByType).reduce((sum, n) => sum + n, 0);
}

export function failedAttempts(summary: TelemetrySummary): number {
  return Object.values(summary.attemptErrorsByType).reduce((sum, n) => sum + n, 0);
}

/** One row per error type of failed attempts: the count and which sources produced them (`beta 5, alpha 1`). */
export function attemptErrorRows(summary: TelemetrySummary): Array<{ type: string; count: number; sources: string }> {
  return byValueDesc(summary.attemptErrorsByType).map(([type, count]) => {
    const perSource: Record<string, number> = {};
    for (const [source, byType] of Object.entries(summary.attemptErrorsBySource)) {
      const n = byType[type];
      if (n !== undefined) perSource[source] = n;
    }
    const sources = byValueDesc(perSource).map(([source, n]) => `${source} ${formatCount(n)}`);
    return { type, count, sources: sources.join(', ') };
  });
}

/** The columns and rows of the per-operation table: chat and embedding calls apart. */
export const OPERATION_COLUMNS = ['operation', 'calls', 'attempts', 'retries', 'failed calls'] as const;

export function operationRows(summary: TelemetrySummary): string[][] {
  return Object.entries(summary.operations)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([operation, o]) => [operation, ...[o.calls, o.attempts, o.retries, o.failedCalls].map(formatCount)]);
}

export function totalCost(record: Readonly<Record<string, number>>): number {
  return Object.values(record).reduce((sum, n) => sum + n, 0);
}

/** Cancelled attempts were stopped by the caller or the deadline: not the source's failure. */
export function cancelledAttemptsNote(summary: TelemetrySummary): string | undefined {
  const n = summary.cancelledAttempts;
  return n === 0 ? undefined : `cancelled attempts (not counted as failed): ${formatCount(n)}`;
}
