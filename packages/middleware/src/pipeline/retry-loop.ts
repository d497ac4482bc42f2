import { randomUUID } from 'node:crypto';
import {
  AllSourcesExhausted,
  BudgetExceededError,
  CircuitOpenError,
  ContextLengthExceededError,
  GatewayUnavailableError,
  SourceDeadError,
  StreamInterruptedError,
  TransientError,
  type CircuitOpenPolicy,
  type QuotaFullPolicy,
  type RetryPolicy,
  type Sleep,
  type ModelIdentity,
  type Source,
  type QuotaWaitStartEvent,
  type BudgetCharge,
  type Caller,
  type MaybePromise,
  DEFAULT_CALLER,
  KEY_GATES,
  TENANT_GATES,
} from '@pgw/core';
import { throwIfAborted } from '../abort.js';
import { admit, type AdmissionDeps, type Admitted, type Refusal } from '../admission/admission.js';
import { andThen, tryThen, wentAsync } from '../maybe-async.js';
import { runAttempt, type AttemptDeps, type AttemptOutcome } from './attempt.js';
import type { Call, Next } from './compose.js';
import { backoffDelayMs } from './backoff.js';
import type { EventHub } from '../telemetry/event-hub.js';
import type { AttemptOperation, BudgetTokens } from './operation.js';
import { deprioritiseFailed, largerWindows, type Selector, type SelectorEntry, type SourceWalk } from '../admission/selector.js';
import { StallClock } from './stall-clock.js';
import type { WaitLine, Waiter } from '../admission/wait-line.js';

export interface QuotaNap {
  /** Shortest wait while every source's quota is full. */
  minMs: number;
  /** Longest wait: a slot freed where this process cannot see it (another worker) is noticed within this. */
  maxMs: number;
}

export const DEFAULT_QUOTA_NAP: QuotaNap = { minMs: 25, maxMs: 1000 };

/** An admission the selector counts until the attempt left. */
interface Entered {
  readonly admitted: Admitted;
  readonly entry: SelectorEntry;
}

export interface RetryLoopDeps extends AttemptDeps, AdmissionDeps {
  selector: Selector;
  retry: RetryPolicy;
  quotaFull: QuotaFullPolicy;
  circuitOpen: CircuitOpenPolicy;
  stallWindowMs: number;
  quotaNap: QuotaNap;
  /** The pipeline's callers waiting for room, served in arrival order. */
  line: WaitLine;
  sleep: Sleep;
  rng: () => number;
}

/** A successful attempt and where it ran. */
export interface Served<Res, M extends ModelIdentity = ModelIdentity> {
  readonly result: Res;
  readonly source: Source<M>;
  readonly callId: string;
  readonly latencyMs: number;
}

/**
 * The innermost governed layer: select, admit, attempt, and on a retryable failure back off and try
 * again (another source first), within the attempt budget and the stall rule. See README "Retry loop".
 */
export function retryLoop<Req, Res, M extends ModelIdentity>(
  deps: RetryLoopDeps,
  operation: AttemptOperation<Req, Res, M>,
): Next<Req, Served<Res, M>> {
  return (call) => new RetryRun(deps, operation, call).run();
}

/** No source failed yet: shared, a call that never fails allocates no list. */
const NONE_FAILED: readonly Source[] = [];

class RetryRun<Req, Res, M extends ModelIdentity> {
  private readonly signal: AbortSignal;
  // Made on first use (`reasons`, `stall`): most calls never fail nor wait, and every call in flight holds a RetryRun.
  private knownReasons: Record<string, string> | undefined;
  private stallClock: StallClock | undefined;
  /** Sources that failed in this call, least recently failed first. */
  private failedByRecency: readonly Source[] = NONE_FAILED;
  private budgetSpent = 0;
  private transientFailures = 0;
  private lastRetryAfterMs: number | undefined;
  /** Set once the call moved on from a too-long prompt: only sources with a larger declared window remain. */
  private contextFallback: { readonly window: number; readonly error: ContextLengthExceededError } | undefined;
  /** This call's place in the wait line, while it waits for room. */
  private place: Waiter | undefined;
  /** Its place in a governor's fleet-wide line, once it tried as the head of this process's line. */
  private turn: string | undefined;
  /** What the request asks of a spend budget, counted once per call. */
  private budgetTokens: BudgetTokens | undefined;
  /** Who the call is for: its tenant's gates and share, its priority class, its key's gates and budget. */
  private readonly caller: Caller;

  constructor(
    private readonly deps: RetryLoopDeps,
    private readonly operation: AttemptOperation<Req, Res, M>,
    private readonly call: Call<Req>,
  ) {
    this.signal = call.ctx.signal;
    const { tenantId, priority, key } = call.ctx;
    this.caller =
      tenantId === undefined && priority === undefined && key === undefined
        ? DEFAULT_CALLER
        : { tenantId: tenantId ?? '', priority: priority ?? 'interactive', ...(key && { key }) };
  }

  /** Why each source failed or refused so far, by source name. */
  private get reasons(): Record<string, string> {
    return (this.knownReasons ??= {});
  }

  private get stall(): StallClock {
    return (this.stallClock ??= new StallClock(this.deps.progress, this.deps.stallWindowMs, this.deps.scope));
  }

  async run(): Promise<Served<Res, M>> {
    try {
      for (;;) {
        throwIfAborted(this.signal);
        const turn = this.admitInTurn();
        const entered = wentAsync(turn) ? await turn : turn;
        if (!entered) continue;
        const { admitted, entry } = entered;
        let outcome: AttemptOutcome<Res>;
        try {
          outcome = await runAttempt(this.deps, this.operation, this.call, admitted);
        } catch (error) {
          if (error instanceof ContextLengthExceededError && this.moveOnFromContext(admitted.source, error)) continue;
          throw error;
        } finally {
          // The attempt gave its pacer slot and its lease back.
          entry.left();
          this.deps.line.roomFreed(this.caller.tenantId);
        }
        if (outcome.ok) {
          // The pipeline that paired this operation with its sources handed the loop sources of its model kind.
          return { result: outcome.result, source: admitted.source as Source<M>, callId: outcome.callId, latencyMs: outcome.latencyMs };
        }
        this.noteFailure(admitted.source, outcome.error);
        if (outcome.committedContent !== undefined) throw this.interrupted(admitted.source, outcome.error, outcome.committedContent);
        await this.afterFailure(outcome.error);
      }
    } finally {
      this.place?.leave();
      this.leaveFleetLine();
    }
  }

  /** A call that ends while holding a turn gives it up, so the fleet's line does not wait for it to lapse. */
  private leaveFleetLine(): void {
    const { turn } = this;
    const { governor, writeBacks } = this.deps;
    this.turn = undefined;
    if (turn !== undefined && governor.leaveLine) void writeBacks.quietly('governor.leaveLine', () => governor.leaveLine!(turn));
  }

  /**
   * A prompt too long for `source` moves on, once, to sources whose declared window is larger; it
   * spends no attempt budget and says nothing about the source's health. False when the call must
   * end with the error: the source declares no window, or the call already moved on once.
   */
  private moveOnFromContext(source: Source, error: ContextLengthExceededError): boolean {
    if (this.contextFallback !== undefined || source.contextWindow === undefined) return false;
    this.contextFallback = { window: source.contextWindow, error };
    this.reasons[source.name] = `context_length ${source.contextWindow}`;
    return true;
  }

  /** Sources the call may still use, in selector order with failed ones last, computed as the walk goes. */
  private candidates(): SourceWalk {
    const order = deprioritiseFailed(this.deps.selector.walk(), this.failedByRecency);
    const fallback = this.contextFallback;
    return fallback === undefined ? order : largerWindows(order, fallback.window);
  }

  /**
   * Tries admission when it is this call's turn: nobody is waiting, or this call is the first in
   * line. Otherwise it waits in line (until woken, or a bounded while to check the stall rule).
   */
  private admitInTurn(): MaybePromise<Entered | undefined> {
    if (this.place === undefined && !this.deps.line.empty) this.place = this.deps.line.join(this.caller);
    if (this.place !== undefined && !this.place.atHead) {
      return this.waitNonProductively(this.deps.quotaNap.maxMs, this.reasons, 'quota_full', this.place).then(nothing);
    }
    // The head of this process's line takes a turn in the fleet's (an admission ends it).
    if (this.place !== undefined) this.turn ??= randomUUID();
    return andThen(this.admitFrom(this.candidates(), []), (entered) => {
      if (entered) {
        this.place?.served();
        this.place?.leave();
        this.place = undefined;
        this.turn = undefined;
      }
      return entered;
    });
  }

  /**
   * Tries the sources `order` walks, in preference order, asking it for the next only when one
   * refused; when none admits, waits per policy and returns undefined. No candidate at all is only
   * possible after a too-long prompt: no source has a larger window, so the call ends with that
   * prompt's error.
   */
  private admitFrom(order: SourceWalk, refusals: Refusal[]): MaybePromise<Entered | undefined> {
    const source = order.next();
    if (source === undefined) {
      if (refusals.length === 0) throw this.contextFallback!.error;
      return this.waitForRoom(refusals).then(nothing);
    }
    // The selector counts the try until its handle is settled: refused here, left after the attempt.
    // Every operation reserves the source's estimate, OCR too (its TPM bounds OCR work in flight);
    // what a permit is settled with is the Settlement's business (OCR: always 0).
    const estTokens = source.estTokens;
    const entry = this.deps.selector.entering(source, estTokens);
    return tryThen(
      () => admit(this.deps, source, estTokens, this.signal, this.turn, this.chargeFor(source), this.caller),
      (answer): MaybePromise<Entered | undefined> => {
        if (answer.kind === 'admitted') return { admitted: answer, entry };
        entry.refused();
        refusals.push(answer);
        return this.admitFrom(order, refusals);
      },
      (error) => {
        entry.refused();
        throw error;
      },
    );
  }

  /**
   * The attempt's budget reservation at `source`, when the scope has a budget or the call's key has
   * one, and the operation costs money.
   */
  private chargeFor(source: Source): BudgetCharge | undefined {
    const key = this.caller.key;
    const keyPrices = key?.budget === undefined ? undefined : this.deps.keyPrices;
    const budget = this.deps.budget ?? keyPrices;
    const { budgetTokens } = this.operation;
    if (budget === undefined || budgetTokens === undefined) return undefined;
    if (keyPrices !== undefined) keyPrices.assertPricedFor(source, key!.id);
    this.budgetTokens ??= budgetTokens(this.call.request);
    return budget.charge(source, this.budgetTokens, this.call.ctx.tenantId);
  }

  private noteFailure(source: Source, error: TransientError | SourceDeadError): void {
    this.reasons[source.name] = failureReason(error);
    this.failedByRecency = [...this.failedByRecency.filter((failed) => failed !== source), source];
  }

  /** Content already reached a streaming caller: no retry can take it back, the call ends here. */
  private interrupted(source: Source, error: TransientError | SourceDeadError, partialContent: string): StreamInterruptedError {
    return new StreamInterruptedError({
      scope: this.deps.scope,
      sourceName: source.name,
      partialContent,
      message:
        `scope ${this.deps.scope}: the stream from source ${source.name} failed after ${partialContent.length} characters ` +
        `reached the caller; not retried (${this.reasons[source.name]})`,
      retryAfterMs: error instanceof TransientError ? error.retryAfterMs : undefined,
      perSourceReasons: this.reasons,
      cause: error,
    });
  }

  private async afterFailure(error: TransientError | SourceDeadError): Promise<void> {
    const rateLimited = error instanceof TransientError && error.transientKind === 'rate_limited';
    if (!rateLimited || this.operation.rateLimitsConsumeBudget) this.budgetSpent += 1;
    if (error instanceof TransientError) this.lastRetryAfterMs = error.retryAfterMs;
    if (this.budgetSpent >= this.deps.retry.maxAttempts) {
      throw new AllSourcesExhausted({
        scope: this.deps.scope,
        message: `scope ${this.deps.scope}: attempt budget of ${this.deps.retry.maxAttempts} spent (${formatReasons(this.reasons)})`,
        retryAfterMs: this.lastRetryAfterMs,
        perSourceReasons: this.reasons,
        cause: error,
      });
    }
    // A dead source is switched away from at once: its breaker is open, nothing to wait for.
    const delayMs =
      error instanceof SourceDeadError ? 0 : backoffDelayMs(this.transientFailures, this.deps.retry, this.deps.rng, error.retryAfterMs);
    const { events } = this.deps;
    if (events?.on.onRetryScheduled) {
      const { ctx } = this.call;
      const source = ctx.ledger.sourcesTried.at(-1) ?? '';
      events.emit('onRetryScheduled', { call: ctx, attempt: ctx.ledger.attempts, source, delayMs, reason: failureReason(error) });
    }
    if (error instanceof SourceDeadError) return;
    this.transientFailures += 1;
    if (rateLimited) await this.waitNonProductively(delayMs, this.reasons, 'rate_limited');
    else await this.deps.sleep(delayMs, this.signal);
  }

  /** Every candidate refused: breaker policy when all are open, else quota policy. */
  private async waitForRoom(refusals: readonly Refusal[]): Promise<void> {
    this.refuseIfBudgetSpent(refusals);
    const reasons = { ...this.reasons };
    for (const refusal of refusals) reasons[refusal.source.name] = refusalReason(refusal);
    if (refusals.length > 0 && refusals.every((refusal) => refusal.kind === 'circuit')) {
      // Floored: a store answering "retry in 0 ms" must not turn the wait into a spin the stall clock never sees.
      const reopenMs = Math.max(this.deps.quotaNap.minMs, Math.min(...refusals.map((refusal) => refusal.retryAfterMs)));
      if (this.deps.circuitOpen === 'fail_fast') {
        throw new CircuitOpenError({ scope: this.deps.scope, retryAfterMs: reopenMs, perSourceReasons: reasons });
      }
      await this.waitNonProductively(reopenMs, reasons, 'circuit_open', this.joinLine());
      return;
    }
    const hints = refusals.flatMap((refusal) => {
      if (refusal.kind === 'budget') return [refusal.refusal.retryAfterMs];
      return refusal.kind === 'quota' || refusal.kind === 'queued' ? [refusal.retryAfterMs] : [];
    });
    const earliestMs = hints.length > 0 ? Math.min(...hints) : undefined;
    // A tenant's gates (and its key's) bound it in the whole scope: refused at one source, it is at its own bound.
    const ownBound = refusals.find((refusal) => refusal.kind === 'quota' && isOwnGate(refusal.gate));
    if (this.deps.quotaFull === 'fail_fast') {
      throw new GatewayUnavailableError({
        scope: this.deps.scope,
        reason: ownBound ? 'tenant_quota_full' : 'quota_full',
        ...(ownBound && { message: this.ownBoundMessage((ownBound as { gate: string }).gate) }),
        retryAfterMs: earliestMs,
        perSourceReasons: reasons,
      });
    }
    const { minMs, maxMs } = this.deps.quotaNap;
    const place = this.joinLine();
    if (ownBound) place.park();
    else place.unpark();
    await this.waitNonProductively(Math.min(maxMs, Math.max(minMs, earliestMs ?? minMs)), reasons, ownBound ? 'tenant_quota_full' : 'quota_full', place);
  }

  /**
   * A budget whose settled spend leaves no room for this call ends it at once, whatever QUOTA_FULL
   * says — unless some source's budget refusal was only others' reservations (a cheaper source
   * may fit once they settle).
   */
  private refuseIfBudgetSpent(refusals: readonly Refusal[]): void {
    const budgeted = refusals.flatMap((refusal) => (refusal.kind === 'budget' ? [refusal.refusal] : []));
    const spent = budgeted.find((refusal) => refusal.exceeded);
    if (spent === undefined || budgeted.some((refusal) => !refusal.exceeded)) return;
    const { status } = spent;
    const { events } = this.deps;
    if (events?.on.onBudgetRefused) {
      const { scope, tenantId, keyId, budgetUsd, spentUsd, resetAt } = status;
      events.emit('onBudgetRefused', {
        call: this.call.ctx,
        scope,
        ...(tenantId !== undefined && { tenantId }),
        ...(keyId !== undefined && { keyId }),
        budgetUsd,
        spentUsd,
        resetAt,
      });
    }
    throw new BudgetExceededError({ status, now: this.deps.now() });
  }

  private ownBoundMessage(gate: string): string {
    const who = KEY_GATE_NAMES.has(gate) ? `key ${this.caller.key!.id} of tenant '${this.caller.tenantId}'` : `tenant '${this.caller.tenantId}'`;
    return `scope ${this.deps.scope} unavailable: ${who} is at its bound (${gate})`;
  }

  private joinLine(): Waiter {
    this.place ??= this.deps.line.join(this.caller);
    return this.place;
  }

  /**
   * Waits up to `ms` (less when woken in line), counting the time actually waited towards the stall
   * rule; the quota-wait events, when someone listens, see its start and its end.
   */
  private async waitNonProductively(
    ms: number,
    reasons: Record<string, string>,
    reason: QuotaWaitStartEvent['reason'],
    place?: Waiter,
  ): Promise<void> {
    this.stall.assertNotStalled(reasons);
    const { events } = this.deps;
    const call = this.call.ctx;
    const started = this.deps.now();
    if (events?.on.onQuotaWaitStart) events.emit('onQuotaWaitStart', { call, reason, delayMs: ms, perSourceReasons: { ...reasons } });
    try {
      if (place) await place.wait(ms, this.signal, this.deps.sleep);
      else await this.deps.sleep(ms, this.signal);
    } finally {
      const waitedMs = Math.max(0, this.deps.now() - started);
      this.stall.addWaiting(waitedMs);
      if (events?.on.onQuotaWaitEnd) events.emit('onQuotaWaitEnd', { call, reason, waitedMs });
    }
  }
}

function failureReason(error: TransientError | SourceDeadError): string {
  const status = error.statusCode === undefined ? '' : ` ${error.statusCode}`;
  return error instanceof TransientError ? `transient:${error.transientKind}${status}` : `dead${status}`;
}

function refusalReason(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'paced':
      return 'paced';
    case 'circuit':
      return 'circuit_open';
    case 'quota':
      return `quota:${refusal.gate}`;
    case 'queued':
      return 'queued';
    case 'budget':
      return refusal.refusal.exceeded ? 'budget:exceeded' : 'budget:reserved';
  }
}

function formatReasons(reasons: Record<string, string>): string {
  return Object.entries(reasons)
    .map(([source, reason]) => `${source}: ${reason}`)
    .join(', ');
}

function nothing(): undefined {
  return undefined;
}

const TENANT_GATE_NAMES: ReadonlySet<string> = new Set(TENANT_GATES);
const KEY_GATE_NAMES: ReadonlySet<string> = new Set(KEY_GATES);

/** The caller's own bounds: its tenant's gates and its key's. */
function isOwnGate(gate: string): boolean {
  return TENANT_GATE_NAMES.has(gate) || KEY_GATE_NAMES.has(gate);
}
