import { isPromise } from '@pgw/core/internal';
import type {
  Admission,
  BudgetCharge,
  BudgetRefusal,
  GateTicket,
  Gate,
  GovernedAdmission,
  Governor,
  LimitGate,
  Limiter,
  MaybePromise,
  Permit,
  Source,
} from '@pgw/core';
import { andThen, raceAbort } from './abort.js';
import type { BreakerWatch } from './breaker-watch.js';
import type { Pacer } from './pacer.js';
import type { WriteBacks } from './write-backs.js';

export interface Admitted {
  readonly kind: 'admitted';
  readonly source: Source;
  readonly ticket: GateTicket;
  readonly permit: Permit;
  /** Present when a governor admitted: its `finish` sends the verdict and the permit's write-back in one operation. */
  readonly governed?: Extract<GovernedAdmission, { ok: true }>;
  /** What the attempt reserved of its scope's spend budget; settled by `governed.finish`. */
  readonly charge?: BudgetCharge;
}

export type Refusal =
  | { readonly kind: 'paced'; readonly source: Source }
  | { readonly kind: 'circuit'; readonly source: Source; readonly retryAfterMs: number }
  | { readonly kind: 'quota'; readonly source: Source; readonly gate: LimitGate; readonly retryAfterMs: number }
  /** Others wait before this caller in the fleet-wide line. */
  | { readonly kind: 'queued'; readonly source: Source; readonly retryAfterMs: number }
  /** The spend budget has no room: final when `refusal.exceeded`, else others' reservations hold it. */
  | { readonly kind: 'budget'; readonly source: Source; readonly refusal: BudgetRefusal };

export interface AdmissionDeps {
  gate: Gate;
  limiter: Limiter;
  /** The breaker and the limiter in one store operation each way, when the backend offers it. */
  governor?: Governor;
  pacer: Pacer;
  writeBacks: WriteBacks;
  breakers?: BreakerWatch;
}

/**
 * Asks the pacer, the breaker and the limiter, in that order, for one attempt at `source`. On
 * success the caller holds a pacer slot, a gate ticket and a permit; on refusal it holds nothing.
 * Store failures (GovernanceBackendError, SourceNotConfiguredError) propagate: admission fails closed.
 * A grant that arrives after the call was cancelled is handed straight back (S1: settles 0).
 * Backends that answer synchronously are answered synchronously: no promise, microtask or abort
 * listener per step (a failure is then thrown).
 */
export function admit(
  deps: AdmissionDeps,
  source: Source,
  estTokens: number,
  signal: AbortSignal,
  turn?: string,
  charge?: BudgetCharge,
): MaybePromise<Admitted | Refusal> {
  if (!deps.pacer.tryEnter(source.name)) return { kind: 'paced', source };
  let answer: MaybePromise<Admitted | Refusal>;
  try {
    answer = deps.governor
      ? andThen(
          raceAbort(deps.governor.admit(source.name, estTokens, turn, charge), signal, (late) => {
            if (late.ok) void deps.writeBacks.quietly('governor.finish', () => late.finish(undefined, 0));
          }),
          (verdict) => governed(source, verdict, charge),
        )
      : admitThroughPorts(deps, source, estTokens, signal);
  } catch (error) {
    deps.pacer.leave(source.name);
    throw error;
  }
  if (!isPromise(answer)) return leaveUnlessAdmitted(deps, answer);
  return answer.then(
    (settled) => leaveUnlessAdmitted(deps, settled),
    (error: unknown) => {
      deps.pacer.leave(source.name);
      throw error;
    },
  );
}

/** A refusal holds nothing: its pacer slot is given back. */
function leaveUnlessAdmitted(deps: AdmissionDeps, answer: Admitted | Refusal): Admitted | Refusal {
  if (answer.kind !== 'admitted') deps.pacer.leave(answer.source.name);
  return answer;
}

/** What a governor's verdict (the breaker and the six gates in one store operation) means for the attempt. */
function governed(source: Source, verdict: GovernedAdmission, charge: BudgetCharge | undefined): Admitted | Refusal {
  if (verdict.ok) return { kind: 'admitted', source, ticket: verdict.ticket, permit: verdict.permit, governed: verdict, ...(charge && { charge }) };
  if (verdict.refusal) return { kind: 'circuit', source, retryAfterMs: verdict.refusal.retryAfterMs };
  if ('budget' in verdict) return { kind: 'budget', source, refusal: verdict.budget };
  if ('queued' in verdict) return { kind: 'queued', source, retryAfterMs: verdict.retryAfterMs };
  return { kind: 'quota', source, gate: verdict.gate, retryAfterMs: verdict.retryAfterMs };
}

/** The breaker's ticket, then the limiter's permit, through the two ports. */
function admitThroughPorts(deps: AdmissionDeps, source: Source, estTokens: number, signal: AbortSignal): MaybePromise<Admitted | Refusal> {
  const verdict = raceAbort(deps.gate.tryAcquire(source.name), signal, (late) => {
    if (late.ok) void releaseProbe(deps, late);
  });
  return andThen(verdict, (ticket) => {
    if (!ticket.ok) {
      deps.breakers?.refused(ticket);
      return { kind: 'circuit', source, retryAfterMs: ticket.retryAfterMs };
    }
    deps.breakers?.admitted(ticket);
    let admission: MaybePromise<Admission>;
    try {
      admission = raceAbort(deps.limiter.tryEnter(source.name, estTokens), signal, (late) => {
        if (late.ok) void giveBack(deps, late.permit);
      });
    } catch (error) {
      return failAfterBreaker(deps, ticket, error);
    }
    if (!isPromise(admission)) return entered(deps, source, ticket, admission);
    return admission.then(
      (settled) => entered(deps, source, ticket, settled),
      (error: unknown) => failAfterBreaker(deps, ticket, error),
    );
  });
}

function entered(deps: AdmissionDeps, source: Source, ticket: GateTicket, admission: Admission): MaybePromise<Admitted | Refusal> {
  if (admission.ok) return { kind: 'admitted', source, ticket, permit: admission.permit };
  return andThen(releaseProbe(deps, ticket), () => ({ kind: 'quota', source, gate: admission.gate, retryAfterMs: admission.retryAfterMs }));
}

/** The limiter failed after the breaker admitted: the probe lease (if any) goes back before the error propagates. */
function failAfterBreaker(deps: AdmissionDeps, ticket: GateTicket, error: unknown): MaybePromise<never> {
  return andThen(releaseProbe(deps, ticket), () => {
    throw error;
  });
}

function releaseProbe(deps: AdmissionDeps, ticket: GateTicket): MaybePromise<void> {
  if (!ticket.probe) return;
  return deps.writeBacks.quietly('gate.releaseProbe', () => deps.gate.releaseProbe(ticket));
}

/** An unused permit: nothing was sent, so the reservation is returned whole. */
function giveBack(deps: AdmissionDeps, permit: Permit): MaybePromise<void> {
  return deps.writeBacks.settleAndRelease(permit, 0);
}
