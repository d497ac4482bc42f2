/**
 * Answers that arrived with a 2xx status but cannot be used. Non-2xx answers, connection failures
 * and in-band errors are translated by `@pgw/http`, shared with every provider.
 */
import { ResultInvalidError, TransientError, redactSecrets, summarizeBody } from '@pgw/core';
import type { HttpAnswer } from '@pgw/http';

/** Where an answer came from, for the errors its content may raise. */
export type AnswerOrigin = Pick<HttpAnswer, 'failure' | 'status' | 'headers'>;

function where(origin: AnswerOrigin): string {
  return `source ${origin.failure.sourceName} ${origin.failure.route ?? ''}`.trimEnd();
}

/** A 2xx answer that cannot be used: unparseable, missing choices, wrong shape. */
export function invalidAnswer(origin: AnswerOrigin, issue: string, body: string): ResultInvalidError {
  const bodyText = summarizeBody(redactSecrets(body, origin.failure.secrets));
  return new ResultInvalidError({
    message: `${where(origin)}: unusable answer (${issue}): ${bodyText}`,
    sourceName: origin.failure.sourceName,
    statusCode: origin.status,
    bodyText,
    issues: [issue],
  });
}

/** A 2xx stream that ended without `[DONE]`: the answer may be cut short, so it is never used. */
export function truncatedStream(origin: AnswerOrigin): TransientError {
  return new TransientError({
    message: `${where(origin)}: the stream ended without [DONE]`,
    sourceName: origin.failure.sourceName,
    statusCode: origin.status,
    transientKind: 'truncated',
  });
}
