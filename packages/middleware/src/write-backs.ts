import type { MaybePromise, Permit } from '@pgw/core';
import { isPromise } from '@pgw/core/internal';
import { andThen, raceAbort } from './abort.js';
import { describeError, type WarnOnce } from './warn-once.js';

/**
 * Governance write-backs after an attempt (breaker verdict, probe release, settle, release). Admission
 * fails closed; a write-back failing afterwards sends nothing ungoverned, so it degrades to one
 * warning per step and the call's own outcome stands (leases reclaim what a lost write-back held).
 */
export class WriteBacks {
  constructor(private readonly warnings: WarnOnce) {}

  /**
   * Cleanup that runs to completion even for a cancelled call. Never throws nor rejects: a failure,
   * thrown or rejected, is one warning per step. Work that finished synchronously returns nothing to await.
   */
  quietly(step: string, work: () => MaybePromise<void>): MaybePromise<void> {
    try {
      const done = work();
      if (isPromise(done)) return done.then(undefined, (error: unknown) => this.warn(step, error));
    } catch (error) {
      this.warn(step, error);
    }
  }

  /**
   * Settles the permit with `actualTokens` and releases it: in one store operation when the permit
   * offers one, else settle then release — the release is attempted even when the settle failed.
   */
  settleAndRelease(permit: Permit, actualTokens: number): MaybePromise<void> {
    const { settleAndRelease } = permit;
    if (settleAndRelease === undefined) return this.settleThenRelease(permit, actualTokens);
    return this.quietly('permit.settleAndRelease', () => settleAndRelease.call(permit, actualTokens));
  }

  /** A write-back the call waits for only while it is not cancelled: a hanging store must not hold a cancelled call. */
  unlessAborted(step: string, work: () => MaybePromise<void>, signal: AbortSignal): MaybePromise<void> {
    return raceAbort(this.quietly(step, work), signal);
  }

  private settleThenRelease(permit: Permit, actualTokens: number): MaybePromise<void> {
    return andThen(this.quietly('permit.settle', () => permit.settle(actualTokens)), () =>
      this.quietly('permit.release', () => permit.release()),
    );
  }

  private warn(step: string, error: unknown): void {
    this.warnings.warnOnce(`write-back:${step}`, `governance write-back ${step} failed: ${describeError(error)}`);
  }
}
