/** Bounded polling: every wait in the suite ends, with a message naming what never happened. */

const POLL_MS = 10;

/** Resolves once `predicate` holds (checked every 10 ms), or rejects after `timeoutMs`. */
export async function until(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await predicate())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
