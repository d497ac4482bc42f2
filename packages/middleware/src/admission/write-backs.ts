import type { MaybePromise } from '@pgw/core';
import { tryThen } from '../maybe-async.js';
import { describeError, type WarnOnce } from '../warn-once.js';

/**
 * Governance write-backs after an attempt (the lease's finish, leaving the fleet's line). Admission
 * fails closed; a write-back failing afterwards sends nothing ungoverned, so it degrades to one
 * warning per step and the call's own outcome stands (leases reclaim what a lost write-back held).
 */
export class WriteBacks {
  constructor(private readonly warnings: WarnOnce) {}

  /** Cleanup that runs to completion even for a cancelled call. Never fails: a failure is one warning per step. */
  quietly<T>(step: string, work: () => MaybePromise<T>): MaybePromise<T | undefined> {
    return tryThen(work, same, (error) => {
      this.warnings.warnOnce(`write-back:${step}`, `governance write-back ${step} failed: ${describeError(error)}`);
      return undefined;
    });
  }
}

function same<T>(value: T): T {
  return value;
}
