import type { GateOutcome, GateTicket, Gate, Governor, LimitGate, Limiter, Permit, Source } from '@pgw/core';
import { raceAbort } from './abort.js';
import type { BreakerWatch } from './breaker-watch.js';
import type { Pacer } from './pacer.js';
import type { WriteBacks } from './write-backs.js';

export interface Admitted {
  readonly kind: 'admitted';
  readonly source: Source;
  readonly ticket: GateTicket;
  readonly permit: Permit;
  /** Present when a governor admitted: the verdict and the permit's write-back in one operation. */
  readonly finish?: (verdict: GateOutcome | undefined, actualTokens: number) => Promise<void>;
}

export type Refusal =
  | { readonly kind: 'paced'; readonly source: Source }
  | { readonly kind: 'circuit'; readonly source: Source; readonly retryAfterMs: number }
  | { readonly kind: 'quota'; readonly source: Source; readonly gate: LimitGate; readonly retryAfterMs: number }
  /** Others wait before this caller in the fleet-wide line. */
  | { readonly kind: 'queued'; readonly source: Source; readonly retryAfterMs: number };

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
 */
export async function admit(
  deps: AdmissionDeps,
  source: Source,
  estTokens: number,
  signal: AbortSignal,
  turn?: string,
): Promise<Admitted | Refusal> {
  if (!deps.pacer.tryEnter(source.name)) return { kind: 'paced', source };
  if (deps.governor) return admitGoverned(deps, deps.governor, source, estTokens, signal, turn);
  let ticket: GateTicket | undefined;
  try {
    const verdict = await raceAbort(deps.gate.tryAcquire(source.name), signal, (late) => {
      if (late.ok) void releaseProbe(deps, late);
    });
    if (!verdict.ok) {
      deps.breakers?.refused(verdict);
      deps.pacer.leave(source.name);
      return { kind: 'circuit', source, retryAfterMs: verdict.retryAfterMs };
    }
    ticket = verdict;
    deps.breakers?.admitted(ticket);
    const admission = await raceAbort(deps.limiter.tryEnter(source.name, estTokens), signal, (late) => {
      if (late.ok) void giveBack(deps, late.permit);
    });
    if (!admission.ok) {
      await releaseProbe(deps, ticket);
      deps.pacer.leave(source.name);
      return { kind: 'quota', source, gate: admission.gate, retryAfterMs: admission.retryAfterMs };
    }
    return { kind: 'admitted', source, ticket, permit: admission.permit };
  } catch (error) {
    if (ticket) await releaseProbe(deps, ticket);
    deps.pacer.leave(source.name);
    throw error;
  }
}

/** `admit` through a governor: one store operation for the breaker and the six gates. */
async function admitGoverned(
  deps: AdmissionDeps,
  governor: Governor,
  source: Source,
  estTokens: number,
  signal: AbortSignal,
  turn: string | undefined,
): Promise<Admitted | Refusal> {
  try {
    const verdict = await raceAbort(governor.admit(source.name, estTokens, turn), signal, (late) => {
      if (late.ok) void deps.writeBacks.quietly('governor.finish', () => late.finish(undefined, 0));
    });
    if (verdict.ok) return { kind: 'admitted', source, ticket: verdict.ticket, permit: verdict.permit, finish: verdict.finish };
    deps.pacer.leave(source.name);
    if (verdict.refusal) return { kind: 'circuit', source, retryAfterMs: verdict.refusal.retryAfterMs };
    if ('queued' in verdict) return { kind: 'queued', source, retryAfterMs: verdict.retryAfterMs };
    return { kind: 'quota', source, gate: verdict.gate, retryAfterMs: verdict.retryAfterMs };
  } catch (error) {
    deps.pacer.leave(source.name);
    throw error;
  }
}

function releaseProbe(deps: AdmissionDeps, ticket: GateTicket): Promise<void> {
  if (!ticket.probe) return Promise.resolve();
  return deps.writeBacks.quietly('gate.releaseProbe', () => deps.gate.releaseProbe(ticket));
}

/** An unused permit: nothing was sent, so the reservation is returned whole. */
function giveBack(deps: AdmissionDeps, permit: Permit): Promise<void> {
  return deps.writeBacks.settleAndRelease(permit, 0);
}
