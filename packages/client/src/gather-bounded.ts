/**
 * Runs task thunks with at most `concurrency` in flight; results keep the input order; the first
 * error rejects at once and no further task is started (tasks already running finish unobserved).
 * A task is started only when a slot frees, so its queue time is outside the deadline of the call
 * it makes.
 */
export async function gatherBounded<T>(tasks: Iterable<() => Promise<T>>, options: { concurrency: number }): Promise<T[]> {
  const concurrency = options?.concurrency;
  if (typeof concurrency !== 'number' || !Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`gatherBounded(concurrency) must be an integer ≥ 1, got ${String(concurrency)}`);
  }
  const iterator = tasks[Symbol.iterator]();
  const results: T[] = [];
  let started = 0;
  let failed = false;

  const worker = async (): Promise<void> => {
    try {
      while (!failed) {
        const step = iterator.next();
        if (step.done) return;
        const index = started;
        started += 1;
        if (typeof step.value !== 'function') {
          throw new TypeError(`gatherBounded(tasks[${index}]) must be a function returning a promise`);
        }
        results[index] = await step.value();
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };

  // Promise.all observes every worker, so a second failure is never an unhandled rejection.
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
