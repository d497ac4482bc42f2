/** AbortSignal plumbing that leaves nothing behind on long-lived signals. */
import { abortError } from './errors.js';
import type { Sleep } from './ports.js';

/** The largest delay `setTimeout` honours; longer delays fire after 1 ms instead. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * The signal of a call started without one. Nobody holds its controller, so it never aborts:
 * listening to it is pointless, and `combineSignals`, `followSignal` and the middleware's races
 * skip it instead of piling one listener per await on a single long-lived signal.
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

const NOTHING_TO_REMOVE = (): void => {};

/** What `followSignal` can abort: an AbortController, or any other cancellation handle with `abort(reason)`. */
export interface AbortTarget {
  abort(reason?: unknown): void;
}

/**
 * Makes `target` abort with `source`'s reason when `source` aborts, through ONE listener on
 * `source`; the returned function removes it (idempotent). A source already aborted aborts the
 * target at once; an absent or never-aborting source gets no listener.
 */
export function followSignal(source: AbortSignal | undefined, target: AbortTarget): () => void {
  if (source === undefined || source === NEVER_ABORTED) return NOTHING_TO_REMOVE;
  if (source.aborted) {
    target.abort(source.reason);
    return NOTHING_TO_REMOVE;
  }
  const onAbort = (): void => target.abort(source.reason);
  source.addEventListener('abort', onAbort, { once: true });
  return () => source.removeEventListener('abort', onAbort);
}

/** The targets following one shared source signal, reached through that signal's single listener. */
interface Followers {
  readonly targets: Set<AbortTarget>;
  readonly onAbort: () => void;
}

const followersOf = new WeakMap<AbortSignal, Followers>();

/**
 * `followSignal` for a signal many followers may share at once (a caller's signal passed to
 * thousands of concurrent calls): however many follow it, `source` carries ONE listener, removed
 * once the last follower left (`leaveSharedSignal`) — no MaxListenersExceededWarning at any
 * concurrency. A follower is the target itself, not a remover closure: every call in flight holds
 * one. A target follows once: joined twice, it leaves at the first leave.
 */
export function joinSharedSignal(source: AbortSignal | undefined, target: AbortTarget): void {
  if (source === undefined || source === NEVER_ABORTED) return;
  if (source.aborted) {
    target.abort(source.reason);
    return;
  }
  (followersOf.get(source) ?? listenFor(source)).targets.add(target);
}

/** Takes `target` off the followers of `source`; the last one to leave removes the listener. Idempotent. */
export function leaveSharedSignal(source: AbortSignal | undefined, target: AbortTarget): void {
  if (source === undefined) return;
  const followers = followersOf.get(source);
  if (followers === undefined || !followers.targets.delete(target) || followers.targets.size > 0) return;
  source.removeEventListener('abort', followers.onAbort);
  followersOf.delete(source);
}

function listenFor(source: AbortSignal): Followers {
  const targets = new Set<AbortTarget>();
  const onAbort = (): void => {
    followersOf.delete(source);
    for (const target of [...targets]) target.abort(source.reason);
    targets.clear();
  };
  source.addEventListener('abort', onAbort, { once: true });
  const followers = { targets, onAbort };
  followersOf.set(source, followers);
  return followers;
}

export interface CombinedSignal {
  signal: AbortSignal;
  /** Removes every listener this combination added to its inputs. Idempotent. */
  dispose(): void;
}

/**
 * A signal that aborts with the reason of the first input to abort; `dispose()` removes every
 * listener it added to the inputs. Used instead of `AbortSignal.any`, whose registrations on a
 * long-lived parent are known to accumulate on Node.
 */
export function combineSignals(signals: ReadonlyArray<AbortSignal | undefined>): CombinedSignal {
  const controller = new AbortController();
  const inputs = signals.filter((s): s is AbortSignal => s !== undefined && s !== NEVER_ABORTED);
  const first = inputs.find((s) => s.aborted);
  if (first !== undefined) {
    controller.abort(first.reason);
    return { signal: controller.signal, dispose: NOTHING_TO_REMOVE };
  }
  const removals: Array<() => void> = [];
  const dispose = (): void => {
    for (const remove of removals.splice(0)) remove();
  };
  for (const input of inputs) {
    const onAbort = (): void => {
      dispose();
      controller.abort(input.reason);
    };
    input.addEventListener('abort', onAbort, { once: true });
    removals.push(() => input.removeEventListener('abort', onAbort));
  }
  return { signal: controller.signal, dispose };
}

/**
 * Abortable real-time sleep. On abort the timer is cleared and the promise rejects with
 * `abortError(signal)`, whose `cause` is `signal.reason` (so a deadline recognises its own abort).
 * Delays above the timer limit are slept in chunks: a finite Retry-After is honoured in full.
 */
export const sleep: Sleep = (ms, given) =>
  new Promise<void>((resolve, reject) => {
    // Many calls may sleep on the never-aborting signal at once: listening to it would pile up listeners.
    const signal = given === NEVER_ABORTED ? undefined : given;
    if (!Number.isFinite(ms)) {
      reject(new RangeError(`sleep(ms) must be a finite number, got ${String(ms)}`));
      return;
    }
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    let remaining = Math.max(0, ms);
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const schedule = (): void => {
      const step = Math.min(remaining, MAX_TIMER_DELAY_MS);
      remaining -= step;
      timer = setTimeout(() => {
        if (remaining > 0) return schedule();
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, step);
    };
    schedule();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
