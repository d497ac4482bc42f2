import {
  AllSourcesExhausted,
  CircuitOpenError,
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
} from '@pgw/core';
import { raceAbort, throwIfAborted } from './abort.js';
import { admit, type AdmissionDeps, type Admitted, type Refusal } from './admission.js';
import { runAttempt, type AttemptDeps } from './attempt.js';
import type { Call, Next } from './compose.js';
import { backoffDelayMs } from './backoff.js';
import type { EventHub } from './event-hub.js';
import type { AttemptOperation } from './operation.js';
import { deprioritiseFailed, type Selector } from './selector.js';
import { StallClock } from './stall-clock.js';

export interface QuotaNap {
  /** Shortest poll while every source's quota is full. */
  minMs: number;
  /** Longest poll: a slot freed elsewhere is noticed within this. */
  maxMs: number;
}

export const DEFAULT_QUOTA_NAP: QuotaNap = { minMs: 25, maxMs: 1000 };

export interface RetryLoopDeps extends AttemptDeps, AdmissionDeps {
  scope: string;
  selector: Selector;
  retry: RetryPolicy;
  quotaFull: QuotaFullPolicy;
  circuitOpen: CircuitOpenPolicy;
  stallWindowMs: number;
  quotaNap: QuotaNap;
  sleep: Sleep;
  rng: () => number;
}

/** A successful attempt and where it ran. */
export interface Governed<Res, M extends ModelIdentity = ModelIdentity> {
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
): Next<Req, Governed<Res, M>> {
  return (call) => new RetryRun(deps, operation, call).run();
}

class RetryRun<Req, Res, M extends ModelIdentity> {
  private readonly stall: StallClock;
  private readonly signal: AbortSignal;
  private readonly reasons: Record<string, string> = {};
  private failedByRecency: string[] = [];
  private budgetSpent = 0;
  private transientFailures = 0;
  private lastRetryAfterMs: number | undefined;

  constructor(
    private readonly deps: RetryLoopDeps,
    private readonly operation: AttemptOperation<Req, Res, M>,
    private readonly call: Call<Req>,
  ) {
    this.stall = new StallClock(deps.progress, deps.stallWindowMs, deps.scope);
    this.signal = call.ctx.signal;
  }

  async run(): Promise<Governed<Res, M>> {
    for (;;) {
      throwIfAborted(this.signal);
      const admitted = await this.admitOne();
      if (!admitted) continue;
      const outcome = await runAttempt(this.deps, this.operation, this.call, admitted);
      if (outcome.ok) {
        // The pipeline that paired this operation with its sources handed the loop sources of its model kind.
        return { result: outcome.result, source: admitted.source as Source<M>, callId: outcome.callId, latencyMs: outcome.latencyMs };
      }
      this.noteFailure(admitted.source, outcome.error);
      if (outcome.committedContent !== undefined) throw this.interrupted(admitted.source, outcome.error, outcome.committedContent);
      await this.afterFailure(outcome.error);
    }
  }

  /** Tries sources in preference order; when none admits, waits per policy and returns undefined. */
  private async admitOne(): Promise<Admitted | undefined> {
    const order = deprioritiseFailed(await raceAbort(this.deps.selector(), this.signal), this.failedByRecency);
    const refusals: Refusal[] = [];
    for (const source of order) {
      const verdict = await admit(this.deps, source, this.estTokens(source), this.signal);
      if (verdict.kind === 'admitted') return verdict;
      refusals.push(verdict);
    }
    await this.waitForRoom(refusals);
    return undefined;
  }

  private noteFailure(source: Source, error: TransientError | SourceDeadError): void {
    this.reasons[source.name] = failureReason(error);
    this.failedByRecency = [...this.failedByRecency.filter((name) => name !== source.name), source.name];
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
    const reasons = { ...this.reasons };
    for (const refusal of refusals) reasons[refusal.source.name] = refusalReason(refusal);
    if (refusals.length > 0 && refusals.every((refusal) => refusal.kind === 'circuit')) {
      // Floored: a store answering "retry in 0 ms" must not turn the wait into a spin the stall clock never sees.
      const reopenMs = Math.max(this.deps.quotaNap.minMs, Math.min(...refusals.map((refusal) => refusal.retryAfterMs)));
      if (this.deps.circuitOpen === 'fail_fast') {
        throw new CircuitOpenError({ scope: this.deps.scope, retryAfterMs: reopenMs, perSourceReasons: reasons });
      }
      await this.waitNonProductively(reopenMs, reasons, 'circuit_open');
      return;
    }
    const hints = refusals.flatMap((refusal) => (refusal.kind === 'quota' ? [refusal.retryAfterMs] : []));
    const earliestMs = hints.length > 0 ? Math.min(...hints) : undefined;
    if (this.deps.quotaFull === 'fail_fast') {
      throw new GatewayUnavailableError({
        scope: this.deps.scope,
        reason: 'quota_full',
        retryAfterMs: earliestMs,
        perSourceReasons: reasons,
      });
    }
    const { minMs, maxMs } = this.deps.quotaNap;
    await this.waitNonProductively(Math.min(maxMs, Math.max(minMs, earliestMs ?? minMs)), reasons, 'quota_full');
  }

  private async waitNonProductively(ms: number, reasons: Record<string, string>, reason: QuotaWaitStartEvent['reason']): Promise<void> {
    this.stall.assertNotStalled(reasons);
    const { events, now } = this.deps;
    if (!events?.on.onQuotaWaitStart && !events?.on.onQuotaWaitEnd) {
      await this.deps.sleep(ms, this.signal);
    } else {
      await this.observedWait(events, ms, reasons, reason, now());
    }
    this.stall.addWaiting(ms);
  }

  private async observedWait(
    events: EventHub,
    ms: number,
    reasons: Record<string, string>,
    reason: QuotaWaitStartEvent['reason'],
    started: number,
  ): Promise<void> {
    const call = this.call.ctx;
    if (events.on.onQuotaWaitStart) events.emit('onQuotaWaitStart', { call, reason, delayMs: ms, perSourceReasons: { ...reasons } });
    try {
      await this.deps.sleep(ms, this.signal);
    } finally {
      if (events.on.onQuotaWaitEnd) events.emit('onQuotaWaitEnd', { call, reason, waitedMs: Math.max(0, this.deps.now() - started) });
    }
  }

  private estTokens(source: Source): number {
    return this.operation.tokenAccounting === 'none' ? 0 : source.estTokens;
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
  }
}

function formatReasons(reasons: Record<string, string>): string {
  return Object.entries(reasons)
    .map(([source, reason]) => `${source}: ${reason}`)
    .join(', ');
}
