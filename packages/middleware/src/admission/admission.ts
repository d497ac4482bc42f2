import type { AdmissionGate, BudgetCharge, Caller, BudgetRefusal, Governor, GovernorRefusal, Lease, MaybePromise, Source } from '@pgw/core';
import { raceAbort } from '../abort.js';
import { reportBreakerChange } from './breaker-events.js';
import type { EventHub } from '../telemetry/event-hub.js';
import type { Pacer } from './pacer.js';
import { tryThen } from '../maybe-async.js';
import type { WriteBacks } from './write-backs.js';

export interface Admitted {
  readonly kind: 'admitted';
  readonly source: Source;
  readonly lease: Lease;
  /** What the attempt reserved of its scope's spend budget (none without a budget); settled by `lease.finish`. */
  readonly charge: BudgetCharge | undefined;
}

export type Refusal =
  | { readonly kind: 'paced'; readonly source: Source }
  | { readonly kind: 'circuit'; readonly source: Source; readonly retryAfterMs: number }
  | { readonly kind: 'quota'; readonly source: Source; readonly gate: AdmissionGate; readonly retryAfterMs: number }
  /** Others wait before this caller in the fleet-wide line. */
  | { readonly kind: 'queued'; readonly source: Source; readonly retryAfterMs: number }
  /** The spend budget has no room: final when `refusal.exceeded`, else others' reservations hold it. */
  | { readonly kind: 'budget'; readonly source: Source; readonly refusal: BudgetRefusal };

export interface AdmissionDeps {
  scope: string;
  governor: Governor;
  pacer: Pacer;
  writeBacks: WriteBacks;
  events?: EventHub;
}

/**
 * Asks the pacer, then the governor (breaker and six gates), for one attempt at `source`. On success
 * the caller holds a pacer slot and a lease; on refusal it holds nothing. Store failures
 * (GovernanceBackendError, SourceNotConfiguredError) propagate: admission fails closed. A lease that
 * arrives after the call was cancelled is handed straight back (S1: settles 0).
 */
export function admit(
  deps: AdmissionDeps,
  source: Source,
  estTokens: number,
  signal: AbortSignal,
  turn?: string,
  charge?: BudgetCharge,
  caller?: Caller,
): MaybePromise<Admitted | Refusal> {
  if (!deps.pacer.tryEnter(source.name)) return { kind: 'paced', source };
  return tryThen(
    () =>
      raceAbort(deps.governor.admit(source.name, estTokens, turn, charge, caller), signal, (late) => {
        reportBreakerChange(deps.events, deps.scope, source.name, transitionOf(late));
        if (late.ok) void deps.writeBacks.quietly('governor.finish', () => late.finish(undefined, 0));
      }),
    (answer) => verdict(deps, source, answer, charge),
    (error) => {
      deps.pacer.leave(source.name);
      throw error;
    },
  );
}

/** What the governor's answer means for the attempt; a refusal holds nothing, its pacer slot goes back. */
function verdict(deps: AdmissionDeps, source: Source, answer: Lease | GovernorRefusal, charge: BudgetCharge | undefined): Admitted | Refusal {
  reportBreakerChange(deps.events, deps.scope, source.name, transitionOf(answer));
  if (answer.ok) return { kind: 'admitted', source, lease: answer, charge };
  deps.pacer.leave(source.name);
  if (answer.refusal) return { kind: 'circuit', source, retryAfterMs: answer.refusal.retryAfterMs };
  if ('budget' in answer) return { kind: 'budget', source, refusal: answer.budget };
  if ('queued' in answer) return { kind: 'queued', source, retryAfterMs: answer.retryAfterMs };
  return { kind: 'quota', source, gate: answer.gate, retryAfterMs: answer.retryAfterMs };
}

function transitionOf(answer: Lease | GovernorRefusal) {
  return 'transition' in answer ? answer.transition : undefined;
}
