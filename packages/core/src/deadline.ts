// STUB — being implemented (issue 2). Signatures are the contract.
export function ensureCallDeadline(value: unknown, origin: string): number {
  throw new Error(`not implemented ${String(value)} ${origin}`);
}
export interface CallDeadlineOptions {
  /** Undefined = off: no timer at all. */
  deadlineMs?: number;
  scope: string;
  /** Caller cancellation; wins over expiry. */
  signal?: AbortSignal;
}
/** Runs `run` with a signal that aborts at the deadline; throws CallDeadlineExceeded when the deadline's own abort ended the run. */
export function withCallDeadline<T>(run: (signal: AbortSignal | undefined) => Promise<T>, options: CallDeadlineOptions): Promise<T> {
  void options;
  return run(undefined);
}
