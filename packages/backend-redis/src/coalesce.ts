/** Items per script call at most: a bound on one call's size and on how long it holds Redis. */
export const MAX_ITEMS_PER_CALL = 128;

interface Waiting<I, R> {
  readonly item: I;
  readonly resolve: (reply: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Gathers the items a process issues within one event-loop turn and sends them as one script call
 * (in chunks of MAX_ITEMS_PER_CALL), in the order they were issued; each item gets its own reply, or
 * the call's failure. While a call is in flight the turn ends at `setImmediate` — after every I/O
 * callback of the poll phase and their microtasks ran — so the replies Redis answered together start
 * the next calls together; while none is, nobody else is likely to come, so the items go at the end
 * of the current job (a microtask) instead of a loop iteration later.
 */
export class Coalescer<I, R> {
  #waiting: Waiting<I, R>[] = [];
  #inFlight = 0;
  readonly #send: (items: readonly I[]) => Promise<readonly R[]>;
  readonly #flush = (): void => this.#sendWaiting();

  constructor(send: (items: readonly I[]) => Promise<readonly R[]>) {
    this.#send = send;
  }

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.#waiting.push({ item, resolve, reject }) > 1) return;
      if (this.#inFlight > 0) setImmediate(this.#flush);
      else queueMicrotask(this.#flush);
    });
  }

  #sendWaiting(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let from = 0; from < waiting.length; from += MAX_ITEMS_PER_CALL) {
      const chunk = waiting.slice(from, from + MAX_ITEMS_PER_CALL);
      this.#inFlight += 1;
      this.#send(chunk.map((w) => w.item))
        .then(
          (replies) => chunk.forEach((w, i) => w.resolve(replies[i]!)),
          (error: unknown) => chunk.forEach((w) => w.reject(error)),
        )
        .finally(() => {
          this.#inFlight -= 1;
        });
    }
  }
}
