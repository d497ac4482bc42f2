import { raceAbort } from './abort.js';
import { describeError, type WarnOnce } from './warn-once.js';

/**
 * Governance write-backs after an attempt (breaker verdict, probe release, settle, release). Admission
 * fails closed; a write-back failing afterwards sends nothing ungoverned, so it degrades to one
 * warning per step and the call's own outcome stands (leases reclaim what a lost write-back held).
 */
export class WriteBacks {
  constructor(private readonly warnings: WarnOnce) {}

  /** Cleanup that runs to completion even for a cancelled call. */
  async quietly(step: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.warnings.warnOnce(`write-back:${step}`, `governance write-back ${step} failed: ${describeError(error)}`);
    }
  }

  /** A write-back the call waits for only while it is not cancelled: a hanging store must not hold a cancelled call. */
  async unlessAborted(step: string, work: () => Promise<void>, signal: AbortSignal): Promise<void> {
    let pending: Promise<void>;
    try {
      pending = work();
    } catch (error) {
      this.warnings.warnOnce(`write-back:${step}`, `governance write-back ${step} failed: ${describeError(error)}`);
      return;
    }
    const guarded = pending.catch((error: unknown) => {
      this.warnings.warnOnce(`write-back:${step}`, `governance write-back ${step} failed: ${describeError(error)}`);
    });
    await raceAbort(guarded, signal);
  }
}
