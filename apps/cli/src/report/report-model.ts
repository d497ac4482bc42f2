/** What one `pgw report` run shows, whichever way it is rendered (table, HTML, JSON). */
import type { TelemetrySummary } from '@pgw/client';

export interface Report {
  summary: TelemetrySummary;
  /** Where the rows came from (a DSN without its password). */
  sourceLabel: string;
  /** Epoch ms; undefined = open end. */
  since?: number;
  until?: number;
  bucketMs: number;
  generatedAt: number;
}

/** Map entries, largest value first (ties by name), so the heaviest items lead tables and charts. */
export function byValueDesc(record: Readonly<Record<string, number>>): Array<[string, number]> {
  return Object.entries(record).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
}

export function failedCalls(summary: TelemetrySummary): number {
  return Object.values(summary.failuresByType).reduce((sum, n) => sum + n, 0);
}

export function totalCost(record: Readonly<Record<string, number>>): number {
  return Object.values(record).reduce((sum, n) => sum + n, 0);
}
