/**
 * One attempt's cancellation: the caller's signal (abort or call deadline), the attempt's total
 * timeout and, for streams, the liveness watchdog. Our own limits abort with a TransientError as
 * the reason; the caller's abort always wins and surfaces as the caller's AbortError.
 */
import { MAX_TIMER_DELAY_MS, TransientError, abortError, followSignal } from '@pgw/core';
import { CancelHandle } from './cancel-handle.js';
import { StreamWatchdog, type StallPhase, type StreamWatchdogLimits } from './stream-watchdog.js';

export interface AttemptScopeOptions {
  callerSignal: AbortSignal;
  sourceName: string;
  route: string;
  totalMs: number;
  /** Present for a stream: arms the first-token limit at once. */
  liveness?: StreamWatchdogLimits;
}

export class AttemptScope {
  /** Handed to undici: cancelled when the caller aborts or one of our limits fires. */
  readonly cancel = new CancelHandle();
  private readonly unfollowCaller: () => void;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  private readonly watchdog: StreamWatchdog | undefined;

  constructor(private readonly options: AttemptScopeOptions) {
    const { callerSignal, totalMs, liveness } = options;
    if (callerSignal.aborted) throw abortError(callerSignal);
    this.unfollowCaller = followSignal(callerSignal, this.cancel);
    this.totalTimer = setTimeout(
      () => this.fail('timeout', `no complete answer within ${totalMs} ms`),
      Math.min(totalMs, MAX_TIMER_DELAY_MS),
    );
    if (liveness !== undefined) {
      this.watchdog = new StreamWatchdog(liveness, (phase, limitMs) => this.fail('stalled_stream', stallText(phase, limitMs)));
      this.watchdog.start();
    }
  }

  /** A content or reasoning token arrived. */
  tokenSeen(): void {
    this.watchdog?.tokenSeen();
  }

  /** The answer is complete: liveness no longer matters (draining the body is still bounded by the total). */
  stopLiveness(): void {
    this.watchdog?.stop();
  }

  /** The error an attempt that threw `error` must surface: the caller's abort, our own limit, or `error` itself. */
  outcome(error: unknown): unknown {
    // The caller first: when it aborted, the cancel signal carries the caller's reason, not ours.
    if (this.options.callerSignal.aborted) return abortError(this.options.callerSignal);
    if (this.cancel.aborted) return this.cancel.reason;
    return error;
  }

  dispose(): void {
    clearTimeout(this.totalTimer);
    this.watchdog?.stop();
    this.unfollowCaller();
  }

  private fail(transientKind: 'timeout' | 'stalled_stream', what: string): void {
    const { sourceName, route } = this.options;
    this.cancel.abort(new TransientError({ message: `${sourceName} ${route}: ${what}`, sourceName, transientKind }));
  }
}

function stallText(phase: StallPhase, limitMs: number): string {
  return phase === 'first_token' ? `no first token within ${limitMs} ms` : `no token for ${limitMs} ms`;
}
