/**
 * SPEC §11 for answers that arrived with a 2xx status but cannot be used. Non-2xx answers and
 * connection failures are translated by `translateHttpFailure` / `translateNetworkFailure` of
 * @pgw/core, shared with every transport.
 */
import { ResultInvalidError, TransientError, redactSecrets, summarizeBody, type SourceConfig } from '@pgw/core';

/** Where an answer came from, for the errors its content may raise. */
export interface AnswerOrigin {
  source: SourceConfig;
  route: string;
  status: number;
}

/** A 2xx answer that cannot be used: unparseable, missing choices, wrong shape. */
export function invalidAnswer(origin: AnswerOrigin, issue: string, body: string): ResultInvalidError {
  const bodyText = summarizeBody(redactSecrets(body, [origin.source.apiKey]));
  return new ResultInvalidError({
    message: `source ${origin.source.name} ${origin.route}: unusable answer (${issue}): ${bodyText}`,
    sourceName: origin.source.name,
    statusCode: origin.status,
    bodyText,
    issues: [issue],
  });
}

/** An `error` event inside a 2xx stream: the upstream failed mid-answer, as a 5xx would have. */
export function failedMidStream(origin: AnswerOrigin, data: string): TransientError {
  const bodyText = summarizeBody(redactSecrets(data, [origin.source.apiKey]));
  return new TransientError({
    message: `source ${origin.source.name} ${origin.route}: error event in the stream: ${bodyText}`,
    sourceName: origin.source.name,
    statusCode: origin.status,
    bodyText,
    transientKind: 'server_error',
  });
}

/** A 2xx stream that ended without `[DONE]`: the answer may be cut short, so it is never used. */
export function truncatedStream(origin: AnswerOrigin): TransientError {
  return new TransientError({
    message: `source ${origin.source.name} ${origin.route}: the stream ended without [DONE]`,
    sourceName: origin.source.name,
    statusCode: origin.status,
    transientKind: 'truncated',
  });
}
