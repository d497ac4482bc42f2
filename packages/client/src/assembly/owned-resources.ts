/**
 * What a client created itself and therefore closes: never a component the caller injected.
 * Closed in reverse creation order (transport before the stores it feeds, the Redis connection
 * last); one failing close does not keep the others open.
 */
export class OwnedResources {
  readonly #closers: Array<() => Promise<void>> = [];
  #closing: Promise<void> | undefined;

  add(close: () => Promise<void>): void {
    if (this.#closing) throw new Error('cannot add a resource to a closed client');
    this.#closers.push(close);
  }

  /** Idempotent: every call returns the same settlement. */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const close of [...this.#closers].reverse()) {
      try {
        await close();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'closing the client failed');
  }
}

/** Registers a component the client created for closing, if it has anything to close. */
export function closeWith<T extends object>(owned: OwnedResources, component: T): T {
  const close = (component as { close?: () => Promise<void> }).close;
  if (typeof close === 'function') owned.add(() => close.call(component));
  return component;
}
