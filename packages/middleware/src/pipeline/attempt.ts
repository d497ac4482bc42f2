import { timeOrderedId } from '../time-ordered-id.js';
import {
  abortError,
  RequestRejectedError,
  ResultInvalidError,
  SourceDeadError,
  TransientError,
  type BreakerVerdict,
  type Clock,
  type MaybePromise,
  type ModelIdentity,
  type ModelPrice,
  type Source,
  type AttemptContent,
  type AttemptEndEvent,
  type AttemptOutcomeCategory,
  type ChatDelta,
  type TelemetryStatus,
  type Usage,
} from '@pgw/core';
import { NEVER_ABORTED } from '@pgw/core/internal';
import { cancellationError, raceAbort } from '../abort.js';
import type { Admitted } from '../admission/admission.js';
import { AttemptDeltas } from './attempt-deltas.js';
import type { Call } from './compose.js';
import { registerAttempt, type CallContext } from './context.js';
import type { HealthBook } from '../admission/health.js';
import { reportBreakerChange } from '../admission/breaker-events.js';
import type { BudgetPricing } from './budget-pricing.js';
import { andThen, wentAsync } from '../maybe-async.js';
import type { EventHub } from '../telemetry/event-hub.js';
import type { AttemptOperation } from './operation.js';
import type { Pacer } from '../admission/pacer.js';
import { Settlement } from './settlement.js';
import type { ScopeProgress } from './stall-clock.js';
import type { WriteBacks } from '../admission/write-backs.js';

export interface AttemptDeps {
  scope: string;
  pacer: Pacer;
  health: HealthBook;
  progress: ScopeProgress;
  writeBacks: WriteBacks;
  now: Clock;
  /** The pipeline's events; absent in unit harnesses. An attempt event nobody listens to is never built. */
  events?: EventHub;
  /** Present when the scope has a spend budget: prices what each attempt reserves and what it cost. */
  budget?: BudgetPricing;
  /** The same prices for a stored key's own budget, which a call may bring to a scope without one (docs/architecture.md#keys). */
  keyPrices?: BudgetPricing;
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
 * propagates. Whatever happens, the pacer slot and the lease are given back exactly once: the lease's
 * `finish` carries the breaker verdict and settles per docs/architecture.md#settlement (see Settlement).
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
  /** The breaker's verdict, sent with the lease's finish; none (a cancellation, a rejected request) gives a probe lease back. */
  private verdict: BreakerVerdict | undefined;
  private attemptNumber = 0;
  /** Rejects the race in `sent` when the call's signal aborts first. */
  private abandonSend: ((error: unknown) => void) | undefined;

  constructor(
    private readonly deps: AttemptDeps,
    private readonly operation: AttemptOperation<Req, Res, M>,
    private readonly call: Call<Req>,
    private readonly admitted: Admitted,
  ) {
    this.started = deps.now();
    this.settlement = new Settlement(operation.tokenAccounting, admitted.lease.estTokens);
    const sink = call.ctx.onDelta;
    this.deltas = sink && new AttemptDeltas(deps.events?.on.onFirstToken ? this.firstTokenWatch(sink) : sink);
  }

  /** Promise handlers rather than an async function: every attempt in flight holds this (docs/decisions.md#lean-hot-path). */
  run(): Promise<AttemptOutcome<Res>> {
    const { deps, callId } = this;
    const source = this.source;
    const { ctx } = this.call;
    // Registered before the transport is called: failed and cancelled attempts were really sent.
    registerAttempt(ctx, source.name);
    this.attemptNumber = ctx.ledger.attempts;
    if (deps.events?.on.onAttemptStart) {
      deps.events.emit('onAttemptStart', { call: ctx, callId, attempt: this.attemptNumber, source: source.name, model: source.model });
    }
    // A function, not the attempt as a listener object: Node wraps such an object in a closure of its own.
    const onAbort = (): void => this.abandonSend?.(abortError(ctx.signal));
    let sent: Promise<Res>;
    try {
      sent = this.sent(ctx.signal, onAbort);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(
      (result) => this.end(onAbort, () => this.succeeded(result)),
      (error: unknown) => this.end(onAbort, () => this.failed(error)),
    );
  }

  /** What the attempt's answer or failure makes of it, then the pacer slot and the lease given back: whatever `outcome` throws is thrown after. */
  private end(onAbort: () => void, outcome: () => AttemptOutcome<Res>): MaybePromise<AttemptOutcome<Res>> {
    const { signal } = this.call.ctx;
    if (signal !== NEVER_ABORTED) signal.removeEventListener('abort', onAbort);
    this.deltas?.close();
    let ended: { ok: true; outcome: AttemptOutcome<Res> } | { ok: false; error: unknown };
    try {
      ended = { ok: true, outcome: outcome() };
    } catch (error) {
      ended = { ok: false, error };
    }
    const close = (): AttemptOutcome<Res> => {
      if (!ended.ok) throw ended.error;
      return ended.outcome;
    };
    const givenBack = this.giveBack();
    return wentAsync(givenBack) ? givenBack.then(close) : close();
  }

  private succeeded(result: Res): AttemptOutcome<Res> {
    const { deps, operation, callId } = this;
    const source = this.source;
    const { ctx, request } = this.call;
    try {
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
      this.verdict = 'success';
      return { ok: true, result, callId, latencyMs };
    } catch (error) {
      return this.failed(error);
    }
  }

  /** Cancellation, a rejected request, an invalid result and a bug are thrown; a transient or dead source is returned for the loop. */
  private failed(error: unknown): AttemptOutcome<Res> {
    const { deps, settlement } = this;
    const source = this.source;
    const { signal } = this.call.ctx;
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
      this.verdict = dead ? 'dead' : 'failure';
      const committedContent = this.deltas?.committedContent;
      return { ok: false, error, ...(committedContent !== undefined && { committedContent }) };
    }
    if (error instanceof ResultInvalidError) {
      settlement.decide('invalid');
      this.report('error', error);
      // A bad result is not a bad service: the breaker counts a success without a window sample.
      this.verdict = 'invalid';
      throw error;
    }
    if (error instanceof RequestRejectedError) settlement.decide('rejected');
    // A rejected request says nothing about the source; an unclassified exception (a bug) settles 0 (S8).
    this.report('error', error);
    throw error;
  }

  /** The pipeline that paired this operation with its sources hands the loop sources of its model kind. */
  private get source(): Source<M> {
    return this.admitted.source as Source<M>;
  }

  /**
   * The transport's answer, raced with the call's signal: a transport that ignores its signal must
   * not hold a cancelled call. `onAbort` (removed by `end`) rejects the race through `abandonSend`:
   * every attempt in flight holds this race, so it keeps no closures of its own.
   */
  private sent(signal: AbortSignal, onAbort: () => void): Promise<Res> {
    const work = this.send();
    if (signal === NEVER_ABORTED) return work;
    return new Promise<Res>((resolve, reject) => {
      // A late answer or failure of an abandoned transport settles nothing any more.
      work.then(resolve, reject);
      if (signal.aborted) {
        reject(abortError(signal));
        return;
      }
      this.abandonSend = reject;
      signal.addEventListener('abort', onAbort, { once: true });
    });
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

  /** One end event per attempt: a cancellation landing after the verdict was reported adds none. */
  private report(status: TelemetryStatus, error?: unknown): void {
    const { events } = this.deps;
    if (this.reported || !events?.on.onAttemptEnd) return;
    this.reported = true;
    events.emit(
      'onAttemptEnd',
      new AttemptEnd(this.call, this.operation, this.result, {
        callId: this.callId,
        attempt: this.attemptNumber,
        source: this.source.name,
        model: this.source.model,
        sourcePrice: this.source.price,
        status,
        outcome: outcomeOf(status, error),
        error,
        statusCode: statusCodeOf(error),
        usage: this.usage,
        latencyMs: Math.max(0, this.deps.now() - this.started),
        retryAfterMs: error instanceof TransientError ? error.retryAfterMs : undefined,
      }),
    );
  }

  /** Wraps the delta sink so the attempt's first content delta is reported once. */
  private firstTokenWatch(sink: (delta: ChatDelta) => void): (delta: ChatDelta) => void {
    let seen = false;
    return (delta) => {
      if (!seen && delta.content) {
        seen = true;
        this.deps.events!.emit('onFirstToken', {
          call: this.call.ctx,
          callId: this.callId,
          source: this.source.name,
          ttftMs: Math.max(0, this.deps.now() - this.started),
        });
      }
      sink(delta);
    };
  }

  /**
   * The pacer slot, then the lease: its finish sends the verdict and settles the permit, once. A
   * cancelled call does not wait for a finish that hangs (the store's own bound ends it); one
   * cancelled before keeps its own error.
   */
  private giveBack(): MaybePromise<void> {
    const { signal } = this.call.ctx;
    const { pacer, writeBacks, events, scope } = this.deps;
    const { source, lease } = this.admitted;
    pacer.leave(source.name);
    const finished = andThen(
      writeBacks.quietly('governor.finish', () => lease.finish(this.verdict, this.settlement.value(), this.spentUsd())),
      (transition) => reportBreakerChange(events, scope, source.name, transition),
    );
    return signal.aborted ? undefined : raceAbort(finished, signal);
  }

  /** What the attempt cost its budget, decided as its tokens are (docs/architecture.md#settlement). */
  private spentUsd(): number {
    const { charge, source } = this.admitted;
    // A charge was made for the scope's budget, or for the call's key's only.
    const budget = this.deps.budget ?? this.deps.keyPrices;
    if (charge === undefined || budget === undefined) return 0;
    return this.settlement.spentUsd(charge.reserveUsd, (usage) => budget.costUsd(source, usage));
  }
}

/** The upstream's HTTP status, when the error is one of the four upstream categories and carries one. */
function statusCodeOf(error: unknown): number | undefined {
  const upstream =
    error instanceof TransientError ||
    error instanceof SourceDeadError ||
    error instanceof RequestRejectedError ||
    error instanceof ResultInvalidError;
  return upstream ? error.statusCode : undefined;
}

function outcomeOf(status: TelemetryStatus, error: unknown): AttemptOutcomeCategory {
  if (status === 'ok') return 'success';
  if (status === 'cancelled') return 'cancelled';
  if (error instanceof TransientError) return 'transient';
  if (error instanceof SourceDeadError) return 'dead';
  if (error instanceof RequestRejectedError) return 'rejected';
  if (error instanceof ResultInvalidError) return 'invalid';
  return 'error';
}

/**
 * An attempt's end event. `content` is a prototype getter, so the transcript is built on first read
 * only (docs/decisions.md#lean-hot-path).
 */
class AttemptEnd<Req, Res, M extends ModelIdentity> implements AttemptEndEvent {
  readonly call: CallContext;
  readonly callId: string;
  readonly attempt: number;
  readonly source: string;
  readonly model: ModelIdentity;
  readonly sourcePrice: ModelPrice | undefined;
  readonly status: TelemetryStatus;
  readonly outcome: AttemptOutcomeCategory;
  readonly error: unknown;
  readonly statusCode: number | undefined;
  readonly usage: Usage | undefined;
  readonly latencyMs: number;
  readonly retryAfterMs: number | undefined;
  private described: AttemptContent | undefined;

  constructor(
    private readonly exchange: Call<Req>,
    private readonly operation: AttemptOperation<Req, Res, M>,
    private readonly result: Res | undefined,
    fields: Omit<AttemptEndEvent, 'call' | 'content'>,
  ) {
    this.call = exchange.ctx;
    this.callId = fields.callId;
    this.attempt = fields.attempt;
    this.source = fields.source;
    this.model = fields.model as ModelIdentity;
    this.sourcePrice = fields.sourcePrice;
    this.status = fields.status;
    this.outcome = fields.outcome;
    this.error = fields.error;
    this.statusCode = fields.statusCode;
    this.usage = fields.usage;
    this.latencyMs = fields.latencyMs;
    this.retryAfterMs = fields.retryAfterMs;
  }

  get content(): AttemptContent {
    return (this.described ??= this.operation.describe(this.exchange.request, this.result));
  }
}
