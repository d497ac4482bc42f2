import { type MaybePromise } from '@pgw/core';
import { isPromise } from '@pgw/core/internal';

/*
 * The governance ports' synchronous fast path, in one place. A memory backend answers plainly, Redis
 * with a promise; the call path continues with `andThen` / `tryThen` either way, so a plain answer
 * continues at once and the first promise makes the rest of the chain asynchronous
 * (docs/decisions.md#lean-hot-path).
 */

/** `next(value)`: at once when `value` is plain, else once it resolves. */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromise(value) ? value.then(next) : next(value);
}

/**
 * `next` with what `step` answers, or `fail` with its failure: a throw and a rejection go to the one
 * handler. A failure of `next` itself is not `fail`'s (as with `promise.then(next, fail)`).
 */
export function tryThen<T, R>(
  step: () => MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
  fail: (error: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  let value: MaybePromise<T>;
  try {
    value = step();
  } catch (error) {
    return fail(error);
  }
  return isPromise(value) ? value.then(next, fail) : next(value);
}

/**
 * True when the chain went asynchronous. An async caller awaits the result only then: awaiting a
 * plain value would still defer its continuation.
 */
export const wentAsync: <T>(result: MaybePromise<T>) => result is Promise<T> = isPromise;
