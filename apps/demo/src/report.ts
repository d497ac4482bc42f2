/** Renders the demo's summary as terminal tables. */
import type { DemoResult } from './demo.js';

function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`.trimEnd()).join('\n');
}

const usd = (value: number) => `$${value.toFixed(6)}`;
const ms = (value: number) => `${Math.round(value)} ms`;
const count = (value: number) => String(value).padStart(4);
const byCountDesc = ([a, x]: readonly [string, number], [b, y]: readonly [string, number]) => y - x || a.localeCompare(b);

/** Failed attempts per error type, largest first, with the sources that produced them: `   7   flaky 6, slow 1`. */
function attemptErrorRows({ attemptErrorsByType, attemptErrorsBySource }: DemoResult['telemetry']) {
  return Object.entries(attemptErrorsByType)
    .sort(byCountDesc)
    .map(([type, n]) => {
      const sources = Object.entries(attemptErrorsBySource)
        .flatMap(([source, byType]) => (byType[type] === undefined ? [] : [[source, byType[type]] as const]))
        .sort(byCountDesc)
        .map(([source, m]) => `${source} ${m}`);
      return [type, `${count(n)}   ${sources.join(', ')}`] as const;
    });
}

export function renderSummary(result: DemoResult): string {
  const failures = Object.entries(result.failuresByType);
  const attemptErrors = attemptErrorRows(result.telemetry);
  const sections = [
    'Summary (chat calls; the embedding call is below)',
    table([
      ['logical calls', String(result.calls)],
      ['succeeded', String(result.succeeded)],
      ['attempts', String(result.attempts)],
      ['retries', `${result.retries}   (re-attempts after a failed attempt)`],
      ['latency p50 / p95', `${ms(result.latencyMs.p50)} / ${ms(result.latencyMs.p95)}`],
      ['cost of answers', usd(result.costUsd)],
      ['elapsed', ms(result.elapsedMs)],
    ]),
    'Failures by type (calls that reached the caller)',
    failures.length === 0 ? '  none' : table(failures.map(([k, v]) => [k, String(v)] as const)),
    'Failed attempts by type (retried or not; from telemetry)',
    table([
      ...(attemptErrors.length === 0 ? ([['none', '']] as const) : attemptErrors),
      ['cancelled attempts', `${count(result.telemetry.cancelledAttempts)}   (not failures)`],
    ]),
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
      ['attempts', `${result.embeddings.attempts}   (one per batch, plus retries)`],
      ['retries', String(result.embeddings.retries)],
    ]),
    'Tool round (runTools: one governed call per step, one logical call id)',
    table([
      ['tool calls', result.toolRound.calls.join(', ')],
      ['tool results', result.toolRound.results.join(', ')],
      ['final answer', result.toolRound.answer],
      ['steps', String(result.toolRound.steps)],
      ['logical call id', result.toolRound.logicalCallId],
    ]),
    `Telemetry rows: ${result.sqlitePath}`,
    'Next',
    table([
      ['the telemetry as tables and charts', `pnpm pgw report --sqlite ${result.sqlitePath} --html report.html`],
      ['the CLI against a local mock', 'pnpm pgw chat --mock "hello"   ·   pnpm pgw check --mock'],
      ['the door for any SDK or coding agent', 'pnpm pgw serve --mock   (Chat Completions, Responses, Anthropic Messages on http://127.0.0.1:8787)'],
    ]),
  ];
  return sections.join('\n');
}
