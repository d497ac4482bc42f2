/** Renders the demo's summary as terminal tables. */
import type { DemoResult } from './demo.js';

function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

const usd = (value: number) => `$${value.toFixed(6)}`;
const ms = (value: number) => `${Math.round(value)} ms`;

export function renderSummary(result: DemoResult): string {
  const failures = Object.entries(result.failuresByType);
  const sections = [
    'Summary',
    table([
      ['logical calls', String(result.calls)],
      ['succeeded', String(result.succeeded)],
      ['attempts', String(result.attempts)],
      ['retries', String(result.retries)],
      ['latency p50 / p95', `${ms(result.latencyMs.p50)} / ${ms(result.latencyMs.p95)}`],
      ['cost of answers', usd(result.costUsd)],
      ['elapsed', ms(result.elapsedMs)],
    ]),
    'Failures by type (calls that reached the caller)',
    failures.length === 0 ? '  none' : table(failures.map(([k, v]) => [k, String(v)] as const)),
    'Answers by source',
    table(Object.entries(result.sources).map(([k, v]) => [k, String(v)] as const)),
    'Telemetry: attempt latency by source (p50 / p95 / p99) and billed cost',
    table(
      Object.entries(result.telemetry.latency).map(
        ([source, l]) =>
          [source, `${ms(l.p50)} / ${ms(l.p95)} / ${ms(l.p99)}   ${usd(result.telemetry.costBySource[source] ?? 0)}`] as const,
      ),
    ),
    'Embeddings',
    table([
      ['vectors', String(result.embeddings.vectors)],
      ['dimension', String(result.embeddings.dim)],
      ['attempts (batches)', String(result.embeddings.attempts)],
    ]),
    `Telemetry rows: ${result.sqlitePath}`,
  ];
  return sections.join('\n');
}
