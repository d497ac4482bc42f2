import { timeOrderedId } from './time-ordered-id.js';
import {
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type Clock,
  type Gate,
  type GateOutcome,
  type ModelIdentity,
  type Source,
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
  /** Absent when nothing records attempts: the attempt's report (texts, description) is then never built. */
  onAttempt?: AttemptObserver;
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
 * once, and the permit is settled per docs/architecture.md#settlement (see Settlement).
 */
export function runAttempt<Req, Res, M extends ModelIdentity>(
  deps: AttemptDeps,
  operation: AttemptOperation<Req, Res, M>,
  call: Call<Req>,
  admitted: Admitted,
): Promise<AttemptOutcome<Res>> {
  return new Attempt(deps, operation, call, admitted).run();
}

/** One attempt's state: what it learnt from the upstream, and what it has reported and written back. */
class Attempt<Req, Res, M extends ModelIdentity> {
  private readonly callId = timeOrderedId();
  private readonly started: number;
  private readonly settlement: Settlement;
  private readonly deltas: AttemptDeltas | undefined;
  private usage: Usage | undefined;
  private result: Res | undefined;
  private reported = false;
  private verdictSent = false;

  constructor(
    private readonly deps: AttemptDeps,
    private readonly operation: AttemptOperation<Req, Res, M>,
    private readonly call: Call<Req>,
    private readonly admitted: Admitted,
  ) {
    this.started = deps.now();
    this.settlement = new Settlement(operation.tokenAccounting, admitted.permit.estTokens);
    this.deltas = call.ctx.onDelta && new AttemptDeltas(call.ctx.onDelta);
  }

  async run(): Promise<AttemptOutcome<Res>> {
    const { deps, operation, settlement, callId } = this;
    const source = this.source;
    const { ctx, request } = this.call;
    const signal = ctx.signal;
    // Registered before the transport is called: failed and cancelled attempts were really sent.
    registerAttempt(ctx, source.name);
    try {
      let result: Res;
      try {
        // Raced as well: a transport that ignores its signal must not hold a cancelled call.
        result = await raceAbort(this.send(), signal);
      } finally {
        this.deltas?.close();
      }
      this.result = result;
      const measured = operation.usageOf(result);
      if (measured) this.learnUsage(measured); // S4: known usage, even 0, is what the permit is charged
      operation.validate?.(result, request, source);
      const latencyMs = Math.max(0, deps.now() - this.started);
      deps.progress.markProgress();
      deps.pacer.onSuccess(source.name);
      deps.health.onSuccess(source.name, latencyMs);
      operation.observe?.(source, result, ctx);
      this.report('ok');
      await this.verdict('success');
      return { ok: true, result, callId, latencyMs };
    } catch (error) {
      if (signal.aborted) {
        settlement.decide('cancelled'); // S3: in flight, usage unknown → keep the reservation
        this.report('cancelled', error);
        throw cancellationError(error, signal);
      }
      if (error instanceof TransientError || error instanceof SourceDeadError) {
        const dead = error instanceof SourceDeadError;
        settlement.decide(dead ? 'dead' : 'transient'); // S5: fixed before this branch's first await
        deps.health.onFailure(source.name);
        if (error instanceof TransientError && error.transientKind === 'rate_limited') deps.pacer.onRateLimited(source.name);
        this.report('error', error);
        await this.verdict(dead ? 'dead' : 'failure');
        const committedContent = this.deltas?.committedContent;
        return { ok: false, error, ...(committedContent !== undefined && { committedContent }) };
      }
      if (error instanceof ResultInvalidError) {
        settlement.decide('invalid');
        this.report('error', error);
        // A bad result is not a bad service: the breaker counts a success without a window sample.
        await this.verdict('invalid');
        throw error;
      }
      if (error instanceof RequestRejectedError) settlement.decide('rejected');
      // A rejected request says nothing about the source; an unclassified exception (a bug) settles 0 (S8).
      this.report('error', error);
      throw error;
    } finally {
      await this.giveBack();
    }
  }

  /** The pipeline that paired this operation with its sources hands the loop sources of its model kind. */
  private get source(): Source<M> {
    return this.admitted.source as Source<M>;
  }

  private send(): Promise<Res> {
    const { ctx, request } = this.call;
    const source = this.source;
    return this.operation.invoke(source, request, {
      signal: ctx.signal,
      sourceName: source.name,
      timeoutMs: source.timeoutMs,
      callId: this.callId,
      logicalCallId: ctx.logicalCallId,
      onUsage: (usage) => this.learnUsage(usage),
      onDelta: this.deltas?.forward,
    });
  }

  private learnUsage(usage: Usage): void {
    this.usage = usage;
    this.settlement.learnUsage(usage);
  }

  /** One row per attempt: a cancellation landing after the verdict row was written adds none. */
  private report(status: AttemptReport['status'], error?: unknown): void {
    const { deps } = this;
    if (this.reported || deps.onAttempt === undefined) return;
    this.reported = true;
    deps.onAttempt(this.call.ctx, {
      source: this.admitted.source,
      callId: this.callId,
      latencyMs: Math.max(0, deps.now() - this.started),
      status,
      error,
      usage: this.usage,
      description: this.operation.describe(this.call.request, this.result),
    });
  }

  private verdict(outcome: GateOutcome): Promise<void> {
    const { gate, writeBacks } = this.deps;
    const { ticket } = this.admitted;
    this.verdictSent = true;
    return writeBacks.unlessAborted('gate.record', () => gate.record(ticket, outcome), this.call.ctx.signal);
  }

  /** The probe lease (unless a verdict went out for it), the pacer slot and the permit, each once. */
  private async giveBack(): Promise<void> {
    const { gate, pacer, writeBacks } = this.deps;
    const { source, ticket, permit } = this.admitted;
    if (ticket.probe && !this.verdictSent) await writeBacks.quietly('gate.releaseProbe', () => gate.releaseProbe(ticket));
    pacer.leave(source.name);
    await writeBacks.settleAndRelease(permit, this.settlement.value());
  }
}
