import { randomUUID } from 'node:crypto';
import {
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type Clock,
  type Gate,
  type GateOutcome,
  type Usage,
} from '@pgw/core';
import { cancellationError, raceAbort } from './abort.js';
import type { Admitted } from './admission.js';
import { AttemptDeltas } from './attempt-deltas.js';
import type { Call } from './compose.js';
import { registerAttempt } from './context.js';
import type { HealthBook } from './health.js';
import type { AttemptObserver, AttemptOperation, AttemptReport } from './operation.js';
import type { Pacer } from './pacer.js';
import { Settlement } from './settlement.js';
import type { ScopeProgress } from './stall-clock.js';
import type { WriteBacks } from './write-backs.js';

export interface AttemptDeps {
  gate: Gate;
  pacer: Pacer;
  health: HealthBook;
  progress: ScopeProgress;
  writeBacks: WriteBacks;
  now: Clock;
  onAttempt: AttemptObserver;
}

export type AttemptOutcome<Res> =
  | { readonly ok: true; readonly result: Res; readonly callId: string; readonly latencyMs: number }
  | {
      readonly ok: false;
      readonly error: TransientError | SourceDeadError;
      /** Content this attempt had already streamed to the caller (`ctx.onDelta`): the call is committed to it. */
      readonly committedContent?: string;
    };

/**
 * One attempt on an admitted source. Returns the result, or the retryable failure (transient / dead)
 * for the loop to act on; everything else — cancellation, rejected request, invalid result, a bug —
 * propagates. Whatever happens, the pacer slot, the probe lease and the permit are given back exactly
 * once, and the permit is settled per SPEC §6.6 (see Settlement).
 */
export async function runAttempt<Req, Res>(
  deps: AttemptDeps,
  operation: AttemptOperation<Req, Res>,
  call: Call<Req>,
  admitted: Admitted,
): Promise<AttemptOutcome<Res>> {
  const { source, ticket, permit } = admitted;
  const { ctx, request } = call;
  const signal = ctx.signal;
  const callId = randomUUID();
  const started = deps.now();
  const settlement = new Settlement(operation.tokenAccounting, permit.estTokens);
  const deltas = ctx.onDelta && new AttemptDeltas(ctx.onDelta);
  let usage: Usage | undefined;
  let verdictSent = false;
  let result: Res | undefined;
  let reported = false;
  // One row per attempt: a cancellation landing after the verdict row was written adds none.
  const report = (status: AttemptReport['status'], error?: unknown): void => {
    if (reported) return;
    reported = true;
    deps.onAttempt(ctx, {
      source,
      callId,
      latencyMs: Math.max(0, deps.now() - started),
      status,
      error,
      usage,
      description: operation.describe(request, result),
    });
  };
  const verdict = (outcome: GateOutcome): Promise<void> => {
    verdictSent = true;
    return deps.writeBacks.unlessAborted('gate.record', () => deps.gate.record(ticket, outcome), signal);
  };

  // Registered before the transport is called: failed and cancelled attempts were really sent.
  registerAttempt(ctx, source.name);
  try {
    // Raced as well: a transport that ignores its signal must not hold a cancelled call.
    result = await raceAbort(
      operation.invoke(source, request, {
        signal,
        callId,
        logicalCallId: ctx.logicalCallId,
        onUsage: (known) => {
          usage = known;
          settlement.learnUsage(known);
        },
        onDelta: deltas?.forward,
      }),
      signal,
    ).finally(() => deltas?.close());
    const measured = operation.usageOf(result);
    if (measured) {
      usage = measured;
      settlement.learnUsage(measured); // S4: known usage, even 0, is what the permit is charged
    }
    operation.validate?.(result, request, source);
    const latencyMs = Math.max(0, deps.now() - started);
    deps.progress.markProgress();
    deps.pacer.onSuccess(source.name);
    deps.health.onSuccess(source.name, latencyMs);
    operation.observe?.(source, result, ctx);
    report('ok');
    await verdict('success');
    return { ok: true, result, callId, latencyMs };
  } catch (error) {
    if (signal.aborted) {
      settlement.decide('cancelled'); // S3: in flight, usage unknown → keep the reservation
      report('cancelled', error);
      throw cancellationError(error, signal);
    }
    if (error instanceof TransientError || error instanceof SourceDeadError) {
      const dead = error instanceof SourceDeadError;
      settlement.decide(dead ? 'dead' : 'transient'); // S5: fixed before this branch's first await
      deps.health.onFailure(source.name);
      if (error instanceof TransientError && error.transientKind === 'rate_limited') deps.pacer.onRateLimited(source.name);
      report('error', error);
      await verdict(dead ? 'dead' : 'failure');
      const committedContent = deltas?.committedContent;
      return { ok: false, error, ...(committedContent !== undefined && { committedContent }) };
    }
    if (error instanceof ResultInvalidError) {
      settlement.decide('invalid');
      report('error', error);
      // A bad result is not a bad service: the breaker counts a success without a window sample.
      await verdict('invalid');
      throw error;
    }
    if (error instanceof RequestRejectedError) settlement.decide('rejected');
    // A rejected request says nothing about the source; an unclassified exception (a bug) settles 0 (S8).
    report('error', error);
    throw error;
  } finally {
    if (ticket.probe && !verdictSent) {
      await deps.writeBacks.quietly('gate.releaseProbe', () => deps.gate.releaseProbe(ticket));
    }
    deps.pacer.leave(source.name);
    await deps.writeBacks.quietly('permit.settle', () => permit.settle(settlement.value()));
    await deps.writeBacks.quietly('permit.release', () => permit.release());
  }
}
