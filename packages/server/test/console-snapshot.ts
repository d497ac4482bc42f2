/**
 * A console state for the browser code's unit tests, written as the server's `ConsoleState` and sent
 * through JSON as `/ui/events` sends it: the page's code receives exactly what the server's types allow.
 */
import type { ConsoleSnapshot } from '../src/console/browser/snapshot.js';
import type { View, ViewElement } from '../src/console/browser/view.js';
import type { ConsoleState } from '../src/console/state.js';

export const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

const gate = (used: number, bound: number) => ({ used, bound });

export function consoleState(fields: Partial<ConsoleState> = {}): ConsoleState {
  return {
    generatedAt: NOW,
    draining: false,
    scopes: [
      {
        scope: 'default',
        kind: 'chat',
        shared: true,
        sources: [
          { source: 'main', model: 'm', health: 'down', breaker: { state: 'open', openUntil: NOW + 2_500, consecutiveFailures: 3 }, rpm: gate(7, 60), tpm: gate(900, 0), concurrency: gate(2, 4), inflightHere: 1, recentErrors: [{ errorClass: 'UpstreamHttpError', count: 3 }] },
          { source: 'spare', model: 'm', health: 'unknown', breaker: undefined, rpm: gate(0, 0), tpm: gate(0, 0), concurrency: gate(0, 0), inflightHere: 0, recentErrors: [] },
        ],
      },
      { scope: 'embed', kind: 'embed', shared: false, sources: [], problem: 'status not readable (RedisError)' },
    ],
    tenants: [
      { scope: 'default', tenantId: 'team-a', atBound: true, rpm: gate(1, 0), tpm: gate(10, 0), concurrency: gate(1, 1), waiting: 2 },
      { scope: 'default', tenantId: '', atBound: false, rpm: gate(0, 0), tpm: gate(0, 0), concurrency: gate(0, 0), waiting: 0 },
    ],
    budgets: [
      { scope: 'default', budgetUsd: 5, spentUsd: 1.25, reservedUsd: 0.01, leftUsd: 3.74, resetAt: undefined },
      { scope: 'default', tenantId: 'team-a', budgetUsd: 0.5, spentUsd: 0.1, reservedUsd: 0, leftUsd: 0.4, resetAt: NOW + 3_600_000 },
    ],
    failuresHere: [{ at: NOW - 1_000, scope: 'default', source: 'main', errorClass: 'UpstreamHttpError', callId: 'call_1' }],
    seriesHere: { bucketMs: 5_000, points: [] },
    panels: [],
    ...fields,
  };
}

/** The state as the page parses it from its event. */
export function received(state: ConsoleState): ConsoleSnapshot {
  const sent: ConsoleSnapshot = state;
  return JSON.parse(JSON.stringify(sent)) as ConsoleSnapshot;
}

/** What a view shows as text, as the DOM's `textContent` would. */
export function textOf(view: View): string {
  return typeof view === 'string' ? view : view.children.map(textOf).join('');
}

/** Every element of the view (itself first) that `match` accepts, in document order. */
export function findAll(view: View, match: (element: ViewElement) => boolean): ViewElement[] {
  if (typeof view === 'string') return [];
  return [...(match(view) ? [view] : []), ...view.children.flatMap((child) => findAll(child, match))];
}

export const byTag = (tag: string) => (element: ViewElement) => element.tag === tag;

/** The body rows of a table view, each as its cells' texts. */
export function cellTexts(view: View): string[][] {
  return findAll(view, byTag('tbody')).flatMap((body) => findAll(body, byTag('tr')).map((tr) => tr.children.map(textOf)));
}
