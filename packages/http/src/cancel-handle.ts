/**
 * The cancel handle an attempt hands to undici: the EventEmitter-style signal undici accepts
 * (`aborted`, `reason`, `once`/`on`/`removeListener` of 'abort'), cheaper per request than an
 * AbortController's signal (docs/decisions.md#lean-hot-path).
 * Callers still cancel with AbortSignals: the attempt follows the caller's signal into this handle.
 */
type Listener = () => void;

export class CancelHandle {
  aborted = false;
  reason: unknown = undefined;
  /** undici adds one listener per request: kept bare, an array only beyond one. */
  #listeners: Listener | Listener[] | undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (typeof listeners === 'function') listeners();
    else if (listeners !== undefined) for (const listener of listeners) listener();
  }

  /** Listeners run once, at the abort (it happens at most once). */
  on(event: string, listener: Listener): this {
    if (event !== 'abort' || this.aborted) return this;
    const listeners = this.#listeners;
    if (listeners === undefined) this.#listeners = listener;
    else if (typeof listeners === 'function') this.#listeners = [listeners, listener];
    else listeners.push(listener);
    return this;
  }

  once(event: string, listener: Listener): this {
    return this.on(event, listener);
  }

  removeListener(event: string, listener: Listener): this {
    const listeners = this.#listeners;
    if (event !== 'abort' || listeners === undefined) return this;
    if (listeners === listener) this.#listeners = undefined;
    else if (typeof listeners !== 'function') {
      const index = listeners.indexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    }
    return this;
  }
}
