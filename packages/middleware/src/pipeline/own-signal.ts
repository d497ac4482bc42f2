import { joinSharedSignal, leaveSharedSignal } from '@pgw/core/internal';

/**
 * Caller signals a running call listens to directly: at most one call holds a signal at a time. A
 * Set, not a WeakSet: a call takes its signal off when it settles, and a Set costs less per call.
 */
const held = new Set<AbortSignal>();

/**
 * Runs one logical call under a signal it holds alone: the caller's, or one following it. A
 * caller's signal is often shared by many calls (one per request, per batch, per server shutdown),
 * and Node scans a signal's listeners on every add and warns past 10. The first call on a signal
 * listens to it directly — races, sleeps, the deadline, the transport — as most callers pass a
 * signal per call, and an AbortController per call cost more than the rest of the signal's work
 * (bench/profiles.md, "The caller's signal, held by one call"). A call that finds the signal held by
 * another gets a signal of its own, following the caller's through ONE listener however many calls
 * share it (`joinSharedSignal`), removed when the last of them ends. Without a caller signal there is
 * nothing to follow: `run` gets undefined.
 */
export function underOwnSignal<T>(
  callerSignal: AbortSignal | undefined,
  run: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (callerSignal === undefined) return run(undefined);
  return held.has(callerSignal) ? runFollowing(callerSignal, run) : runHolding(callerSignal, run);
}

function runHolding<T>(callerSignal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  held.add(callerSignal);
  return settled(run, callerSignal, () => held.delete(callerSignal));
}

function runFollowing<T>(callerSignal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  joinSharedSignal(callerSignal, own);
  return settled(run, own.signal, () => leaveSharedSignal(callerSignal, own));
}

/** Promise handlers rather than an async function: every call in flight holds this one (docs/decisions.md#lean-hot-path). */
function settled<T>(run: (signal: AbortSignal) => Promise<T>, signal: AbortSignal, end: () => void): Promise<T> {
  let running: Promise<T>;
  try {
    running = run(signal);
  } catch (error) {
    end();
    return Promise.reject(error);
  }
  return running.then(
    (value) => {
      end();
      return value;
    },
    (error: unknown) => {
      end();
      throw error;
    },
  );
}
