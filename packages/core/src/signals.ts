// STUB — being implemented (issue 2). Signatures are the contract.
import type { Sleep } from './ports.js';
/** A signal that aborts when any input aborts; `dispose()` removes every listener it added to the inputs. */
export function combineSignals(signals: ReadonlyArray<AbortSignal | undefined>): { signal: AbortSignal; dispose(): void } {
  void signals;
  throw new Error('not implemented');
}
/** Abortable real-time sleep; the timer is cleared on abort. */
export const sleep: Sleep = async () => {
  throw new Error('not implemented');
};
