import { createHash } from 'node:crypto';

/**
 * A job's default id: a digest of the input's content and the output path, so running the same
 * command again finds (and resumes) the same job, while another input or another output is another job.
 */
export function jobIdOf(inputText: string, outputPath = ''): string {
  return `batch_${createHash('sha256').update(inputText).update('\0').update(outputPath).digest('hex').slice(0, 24)}`;
}

/** Job ids land in file names, keys and URLs: a bounded, plain alphabet. */
export const JOB_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export function assertJobId(job: unknown, origin: string): asserts job is string {
  if (typeof job !== 'string' || !JOB_ID_PATTERN.test(job)) {
    throw new TypeError(`${origin} must be 1 to 128 characters of A-Z, a-z, 0-9, _ and -, got ${JSON.stringify(job)}`);
  }
}
