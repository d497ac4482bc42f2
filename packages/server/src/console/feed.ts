/**
 * `/ui/events`: the console state pushed to every open console as one server-sent event a second.
 * One timer serves all streams, runs only while a stream is open and reads the state once per beat
 * (a beat is skipped while the previous read is still running); a stream is dropped when its reader
 * goes away or stops reading, and `close()` (the drain) ends them all and clears the timer, so no
 * console keeps the server open.
 */
import type { ServerResponse } from 'node:http';
import type { ConsoleState } from './state.js';

export const FEED_INTERVAL_MS = 1000;
/** A console this far behind in reading its stream is dropped (it reconnects when it can read again). */
const MAX_UNREAD_BYTES = 1024 * 1024;

export class ConsoleFeed {
  readonly #streams = new Set<ServerResponse>();
  readonly #read: () => Promise<ConsoleState>;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #reading = false;
  #closed = false;

  constructor(read: () => Promise<ConsoleState>, onError: (error: unknown) => void) {
    this.#read = read;
    this.#onError = onError;
  }

  get streams(): number {
    return this.#streams.size;
  }

  /** Adds a stream whose headers were sent; it gets the state at once, then on every beat. */
  add(response: ServerResponse): void {
    if (this.#closed) {
      response.end();
      return;
    }
    this.#streams.add(response);
    response.once('close', () => this.#remove(response));
    this.#timer ??= setInterval(() => void this.#beat(), FEED_INTERVAL_MS);
    void this.#beat();
  }

  /** Ends every stream and stops the timer; later streams are ended at once. */
  close(): void {
    this.#closed = true;
    for (const response of this.#streams) response.end();
    this.#streams.clear();
    this.#stop();
  }

  #remove(response: ServerResponse): void {
    this.#streams.delete(response);
    if (this.#streams.size === 0) this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #beat(): Promise<void> {
    if (this.#reading || this.#streams.size === 0) return;
    this.#reading = true;
    try {
      const event = `event: state\ndata: ${JSON.stringify(await this.#read())}\n\n`;
      for (const response of this.#streams) {
        if (response.writableLength > MAX_UNREAD_BYTES) response.destroy();
        else response.write(event);
      }
    } catch (error) {
      this.#onError(error);
    } finally {
      this.#reading = false;
    }
  }
}
