import { ResultInvalidError } from '@pgw/core';

/**
 * A 2xx answer that cannot be used. Non-2xx answers and connection failures are translated by
 * `@pgw/http`, shared with every provider.
 */
export function invalidResult(sourceName: string, what: string, issues: string[], status = 200): ResultInvalidError {
  return new ResultInvalidError({
    message: `source ${sourceName}: unusable ${what}: ${issues.join('; ')}`,
    sourceName,
    statusCode: status,
    issues,
  });
}
