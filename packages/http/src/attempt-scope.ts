/**
 * One attempt's cancellation: the caller's signal (abort or call deadline), the attempt's total
 * timeout and, for streams, the liveness limits. Our own limits abort with a TransientError as
 * the reason; the caller's abort always wins and surfaces as the caller's AbortError.
 */
import { TransientError, abortError } from '@pgw/core';
import { MAX_TIMER_DELAY_MS, NEVER_ABORTED } from '@pgw/core/internal';
import { CancelHandle } from './cancel-handle.js';
import { LivenessTimer, type AttemptLimit, type LivenessLimits } from './liveness-timer.js';

export interface AttemptScopeOptions {
  callerSignal: AbortSignal;
  sourceName: string;
  route: string;
  totalMs: number;
  /** Present for a stream: arms the first-token limit at once. */
  liveness?: LivenessLimits;
}

/**
 * Every attempt in flight holds one: one timer for the total and the liveness limits
 * (`LivenessTimer`), and the scope itself is its listener on the caller's signal (`handleEvent`).
 */
export class AttemptScope extends LivenessTimer {
  /** Handed to undici: cancelled when the caller aborts or one of our limits fires. */
  readonly cancel = new CancelHandle();
  // The options' fields, not the options object: one object fewer per attempt in flight.
  private readonly callerSignal: AbortSignal;
  private readonly sourceName: string;
  private readonly route: string;
  /** As asked: the timer's own total is capped at the timer limit. */
  private readonly askedTotalMs: number;

  constructor(options: AttemptScopeOptions) {
    const { callerSignal, totalMs, liveness } = options;
    if (callerSignal.aborted) throw abortError(callerSignal);
    super(Math.min(totalMs, MAX_TIMER_DELAY_MS), liveness);
    this.callerSignal = callerSignal;
    this.sourceName = options.sourceName;
    this.route = options.route;
    this.askedTotalMs = totalMs;
    if (callerSignal !== NEVER_ABORTED) callerSignal.addEventListener('abort', this, { once: true });
    this.startLimits();
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.cancel.abort(this.callerSignal.reason);
  }

  /** The error an attempt that threw `error` must surface: the caller's abort, our own limit, or `error` itself. */
  outcome(error: unknown): unknown {
    // The caller first: when it aborted, the cancel signal carries the caller's reason, not ours.
    if (this.callerSignal.aborted) return abortError(this.callerSignal);
    if (this.cancel.aborted) return this.cancel.reason;
    return error;
  }

  dispose(): void {
    this.stop();
    const { callerSignal } = this;
    if (callerSignal !== NEVER_ABORTED) callerSignal.removeEventListener('abort', this);
  }

  protected expired(limit: AttemptLimit, limitMs: number): void {
    const { sourceName, route, askedTotalMs: totalMs } = this;
    const what =
      limit === 'total'
        ? `no complete answer within ${totalMs} ms`
        : limit === 'first_token'
          ? `no first token within ${limitMs} ms`
          : `no token for ${limitMs} ms`;
    const transientKind = limit === 'total' ? 'timeout' : 'stalled_stream';
    this.cancel.abort(new TransientError({ message: `${sourceName} ${route}: ${what}`, sourceName, transientKind }));
  }
}
