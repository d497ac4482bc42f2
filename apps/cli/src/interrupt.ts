/**
 * SIGINT handling: the first Ctrl-C aborts the in-flight call through an AbortSignal so clients
 * close cleanly (exit code 130); a second one exits at once.
 */
import { EXIT } from './exit-codes.js';

export class Interrupt {
  readonly #controller = new AbortController();
  readonly #onSignal = (): void => {
    if (this.#controller.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write('\npgw: interrupted, stopping (Ctrl-C again to exit at once)\n');
    this.#controller.abort(new Error('interrupted by SIGINT'));
  };

  constructor() {
    process.on('SIGINT', this.#onSignal);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get fired(): boolean {
    return this.#controller.signal.aborted;
  }

  dispose(): void {
    process.off('SIGINT', this.#onSignal);
  }
}
