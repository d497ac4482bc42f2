import { joinSharedSignal, leaveSharedSignal } from '@pgw/core/internal';

/**
 * Runs one logical call under a signal of its own. A caller's signal is often shared by many calls
 * (one per request, per batch, per server shutdown), and Node scans a signal's listeners on every
 * add and warns past 10: so the caller's signal gets ONE listener however many calls share it
 * (`joinSharedSignal`), removed when the last of them ends, and
 * everything inside — races, sleeps, the deadline, the transport — listens to the call's own signal.
 * Without a caller signal there is nothing to follow: `run` gets undefined.
 */
export function underOwnSignal<T>(
  callerSignal: AbortSignal | undefined,
  run: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  return callerSignal === undefined ? run(undefined) : runFollowing(callerSignal, run);
}

/** Promise handlers rather than an async function: every call in flight holds this one (docs/decisions.md#lean-hot-path). */
function runFollowing<T>(callerSignal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  joinSharedSignal(callerSignal, own);
  let running: Promise<T>;
  try {
    running = run(own.signal);
  } catch (error) {
    leaveSharedSignal(callerSignal, own);
    return Promise.reject(error);
  }
  return running.then(
    (value) => {
      leaveSharedSignal(callerSignal, own);
      return value;
    },
    (error: unknown) => {
      leaveSharedSignal(callerSignal, own);
      throw error;
    },
  );
}
