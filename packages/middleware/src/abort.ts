import { abortError, SourceDeadError, TransientError, type MaybePromise } from '@pgw/core';
import { isPromise, NEVER_ABORTED } from '@pgw/core/internal';

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/**
 * Awaits `work` unless `signal` aborts first, then rejects with the abort error at once: a write-back
 * or admission call that hangs must not hold a cancelled call. When abort wins, `onLate` receives the
 * value `work` resolves to later, so whatever it grants (a permit, a probe lease) is given back.
 * Racing a signal that can never abort costs nothing: `work` itself is returned. A plain value (a
 * port that answered synchronously) costs no promise and no listener either: it is returned, or, if
 * the signal has aborted, handed to `onLate` and the abort error thrown.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, onLate?: (value: T) => void): Promise<T>;
export function raceAbort<T>(work: MaybePromise<T>, signal: AbortSignal, onLate?: (value: T) => void): MaybePromise<T>;
export function raceAbort<T>(work: MaybePromise<T>, signal: AbortSignal, onLate?: (value: T) => void): MaybePromise<T> {
  if (!isPromise(work)) {
    if (!signal.aborted) return work;
    onLate?.(work);
    throw abortError(signal);
  }
  if (signal === NEVER_ABORTED) return work;
  if (signal.aborted) {
    abandon(work, onLate);
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      abandon(work, onLate);
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Nobody awaits an abandoned `work` any more: its failure is dropped, its late grant goes to `onLate`. */
function abandon<T>(work: Promise<T>, onLate: ((value: T) => void) | undefined): void {
  work.then(
    (value) => onLate?.(value),
    () => undefined,
  );
}

/**
 * What a cancelled call surfaces: the error as thrown, except an upstream category error (a transport
 * that dressed the abort up as a timeout), which must never reach the caller.
 */
export function cancellationError(error: unknown, signal: AbortSignal): unknown {
  return error instanceof TransientError || error instanceof SourceDeadError ? abortError(signal) : error;
}
