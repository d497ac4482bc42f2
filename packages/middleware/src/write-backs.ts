import { describeError, type WarnOnce } from './warn-once.js';

/**
 * Governance write-backs after an attempt (the lease's finish, leaving the fleet's line). Admission
 * fails closed; a write-back failing afterwards sends nothing ungoverned, so it degrades to one
 * warning per step and the call's own outcome stands (leases reclaim what a lost write-back held).
 */
export class WriteBacks {
  constructor(private readonly warnings: WarnOnce) {}

  /** Cleanup that runs to completion even for a cancelled call. Never rejects: a failure is one warning per step. */
  async quietly<T>(step: string, work: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      this.warnings.warnOnce(`write-back:${step}`, `governance write-back ${step} failed: ${describeError(error)}`);
      return undefined;
    }
  }
}
