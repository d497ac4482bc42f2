import { type MaybePromise } from '@pgw/core';
import { isPromise } from '@pgw/core/internal';

/**
 * A stretch of the call path written as a generator: it waits for each port's answer by yielding it,
 * `const answer: Lease | GovernorRefusal = yield governor.admit(…)`, and resumes with its value (or
 * its failure thrown). `run` keeps the governance ports' synchronous fast path in this one place: a
 * plain answer (memory) is handed back at once, with no promise and no microtask; the first promise
 * (Redis) turns the rest of the stretch asynchronous. (`yield` is typed `any`: the annotation on the
 * receiving variable names what the port answers.)
 */
export type Steps<T> = Generator<unknown, T, any>;

/**
 * Runs `steps` to the end: the value (or the throw) at once while answers are plain, else a promise
 * of it. An async caller awaits the result only when it `wentAsync`: awaiting a plain value would
 * still cost a turn of the microtask queue.
 */
export function run<T>(steps: Steps<T>): MaybePromise<T> {
  return advance(steps, steps.next());
}

/** True when `run` answered with a promise (the steps went asynchronous). */
export const wentAsync: <T>(result: MaybePromise<T>) => result is Promise<T> = isPromise;

function advance<T>(steps: Steps<T>, result: IteratorResult<unknown, T>): MaybePromise<T> {
  while (!result.done) {
    const answer = result.value;
    if (isPromise(answer)) {
      return answer.then(
        (value) => advance(steps, steps.next(value)),
        (error: unknown) => advance(steps, steps.throw(error)),
      );
    }
    result = steps.next(answer);
  }
  return result.value;
}
