/** The governed calls being served: the drain waits for them, and aborts those left when its grace ends. */
export class InflightCalls {
  readonly #calls = new Set<AbortController>();
  #idle: (() => void)[] = [];

  get size(): number {
    return this.#calls.size;
  }

  /** Registers a call; the returned function ends it (idempotent). */
  begin(controller: AbortController): () => void {
    this.#calls.add(controller);
    return () => {
      if (!this.#calls.delete(controller) || this.#calls.size > 0) return;
      const waiting = this.#idle;
      this.#idle = [];
      for (const resolve of waiting) resolve();
    };
  }

  /** Resolves once no call is in flight. */
  idle(): Promise<void> {
    if (this.#calls.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  abortAll(reason: Error): void {
    for (const controller of this.#calls) controller.abort(reason);
  }
}
