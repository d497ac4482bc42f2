import { GovernanceBackendError } from '@pgw/core';

/**
 * Runs one governance operation; any failure of the store (refused, timed out, script error,
 * unexpected reply) becomes a GovernanceBackendError, so the caller fails closed and nothing is admitted.
 */
export async function failClosed<T>(scope: string, operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new GovernanceBackendError({ scope, message: `redis ${operation} failed for scope ${scope}: ${reason}`, cause });
  }
}
