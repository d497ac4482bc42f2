import { OwnedResources } from './assembly/owned-resources.js';

/** What the three clients share: they close only what they created, once, and refuse calls afterwards. */
export abstract class OwningClient {
  #owned = new OwnedResources();
  #closed = false;

  /** Hands the client the resources its factory created, to close with it. */
  protected adopt(owned: OwnedResources): void {
    this.#owned = owned;
  }

  protected assertOpen(method: string): void {
    if (this.#closed) throw new Error(`${this.constructor.name}.${method}: the client is closed`);
  }

  /** Closes the components the client created itself (never injected ones). Idempotent. */
  close(): Promise<void> {
    this.#closed = true;
    return this.#owned.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Runs a factory's assembly; if it fails, whatever it had already created is closed. */
export async function assembling<T>(build: (owned: OwnedResources) => Promise<T>): Promise<{ value: T; owned: OwnedResources }> {
  const owned = new OwnedResources();
  try {
    return { value: await build(owned), owned };
  } catch (error) {
    await owned.close().catch(() => {});
    throw error;
  }
}
