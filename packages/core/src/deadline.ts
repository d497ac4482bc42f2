/**
 * The optional wall-clock deadline of one logical call (docs/architecture.md#call-deadline). It governs waiting, not the
 * return time: on expiry the run's signal aborts and the run is awaited to its settlement, so
 * cleanup finishes before the call returns (return time = deadline + cleanup).
 */
import { abortError, CallDeadlineExceeded } from './errors.js';
import { combineSignals, MAX_TIMER_DELAY_MS } from './signals.js';

/**
 * Validates a deadline in milliseconds: a finite number > 0 and ≤ the timer limit (about 24.8
 * days; a longer delay would make `setTimeout` fire after 1 ms). Booleans and numeric strings are
 * refused: `true` is not one millisecond. Throws a RangeError naming `origin`.
 */
export function ensureCallDeadline(value: unknown, origin: string): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMER_DELAY_MS) return value;
  const shown = typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `${typeof value} ${String(value)}`;
  throw new RangeError(
    `${origin} must be a finite number of milliseconds > 0 and ≤ ${MAX_TIMER_DELAY_MS}, got ${shown}`,
  );
}

export interface CallDeadlineOptions {
  /** Undefined = off: no timer at all. */
  deadlineMs?: number;
  scope: string;
  /** Caller cancellation; wins over expiry. */
  signal?: AbortSignal;
}

/**
 * Whether `error` is the deadline's own abort: the reason itself (what `fetch`/undici reject
 * with) or an error whose own `cause` is it (Node's AbortError convention, `abortError()`).
 * Deeper chains are deliberately not followed: an error that wraps the abort (a cleanup step's
 * own timeout, a transport's translation) is the body's verdict and propagates unchanged.
 */
function isCausedBy(error: unknown, reason: unknown): boolean {
  if (error === reason) return true;
  return typeof error === 'object' && error !== null && (error as { cause?: unknown }).cause === reason;
}

/**
 * Runs `run` with a signal that aborts at the deadline; throws CallDeadlineExceeded when the
 * deadline's own abort ended the run. Verdicts, in order, when `run` rejects:
 * 1. the caller's signal aborted and the rejection is an abort (the caller's or the deadline's)
 *    → `abortError(callerSignal)`: caller cancellation wins over expiry, before or after it;
 * 2. the rejection is the deadline's own abort, recognised by the identity of a reason object
 *    created for this call only → CallDeadlineExceeded (its `cause` is the rejection);
 * 3. anything else (an inner timeout, even one raised while cleaning up after expiry; a domain
 *    error thrown in the expiry window) → propagates unchanged.
 * A value returned after expiry is returned. The timer is cleared and the caller's signal is left
 * without listeners when the call settles.
 */
export async function withCallDeadline<T>(
  run: (signal: AbortSignal | undefined) => Promise<T>,
  options: CallDeadlineOptions,
): Promise<T> {
  const { scope, signal } = options;
  if (options.deadlineMs === undefined) return run(signal);
  const deadlineMs = ensureCallDeadline(options.deadlineMs, 'withCallDeadline(deadlineMs)');
  const expiry = new AbortController();
  const reason = new DOMException(`call deadline of ${deadlineMs} ms exceeded in scope ${scope}`, 'TimeoutError');
  const combined = combineSignals([signal, expiry.signal]);
  const timer = setTimeout(() => expiry.abort(reason), deadlineMs);
  try {
    return await run(combined.signal);
  } catch (error) {
    if (signal?.aborted && (isCausedBy(error, signal.reason) || isCausedBy(error, reason))) throw abortError(signal);
    if (isCausedBy(error, reason)) throw new CallDeadlineExceeded({ scope, deadlineMs, cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
    combined.dispose();
  }
}
